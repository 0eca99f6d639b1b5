/**
 * Brook's data plane: the partitions this broker hosts, their leader and follower state, high
 * watermarks, delayed operations (acks=all, fetch long-polls) and one handler per Kafka API.
 */
package io.brook.broker;
