/**
 * Metadata records: the only way cluster metadata changes.
 *
 * <p>Every change to brokers, topics, partitions, configs and producer-id blocks is one of the
 * immutable records of the sealed {@link io.brook.metadata.record.MetadataRecord} hierarchy. The
 * controller returns them, the journal (later the Raft log) stores them, and {@link
 * io.brook.metadata.image.MetadataImage#apply} replays them, on the same path for a live write and
 * for loading after a restart. {@link io.brook.metadata.record.RecordJson} is their stable JSON
 * form.
 */
package io.brook.metadata.record;
