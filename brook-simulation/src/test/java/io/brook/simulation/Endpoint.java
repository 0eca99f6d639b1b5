package io.brook.simulation;

/**
 * Something the simulated network delivers to: one life of a broker, the controller, a client. A
 * message addressed to an endpoint that is no longer alive (the broker crashed, even if it has
 * restarted since) is dropped, as a message on a broken connection is.
 */
interface Endpoint {
  /** The node id: partitions and pauses name nodes, not lives. */
  int nodeId();

  boolean alive();
}
