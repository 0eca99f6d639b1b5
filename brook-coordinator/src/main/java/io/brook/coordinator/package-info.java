/**
 * Coordinators that keep their state in an internal, compacted topic and live on the leaders of its
 * partitions: the group coordinator on {@code __consumer_offsets} today, the transaction
 * coordinator on {@code __transaction_state} later. {@code runtime} is the shared machinery
 * (shards, loading, persisting); {@code group} the group coordinator; {@code api} its Kafka APIs.
 */
package io.brook.coordinator;
