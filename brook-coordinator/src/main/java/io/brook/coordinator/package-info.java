/**
 * Coordinators that keep their state in an internal, compacted topic and live on the leaders of its
 * partitions: the group coordinator on {@code __consumer_offsets} and the transaction coordinator
 * on {@code __transaction_state}. {@code runtime} is the shared machinery (shards, loading,
 * persisting through the broker's {@code CoordinatorLog}); {@code group} and {@code txn} the two
 * coordinators; {@code api} and {@code txn.api} serve their Kafka APIs behind the service
 * interfaces of {@code brook-coordinator-api}.
 */
package io.brook.coordinator;
