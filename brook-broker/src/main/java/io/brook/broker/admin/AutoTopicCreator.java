package io.brook.broker.admin;

import org.apache.kafka.common.protocol.Errors;

/** Creates a topic a client asked about, when {@code auto.create.topics.enable} allows it. */
@FunctionalInterface
public interface AutoTopicCreator {
  /**
   * Creates {@code topic} with the broker's default partitions and replication factor.
   *
   * @return NONE once created (or if it already existed), or why it could not be
   */
  Errors createIfAllowed(String topic);
}
