/**
 * Where controller operations become durable and visible: {@link
 * io.brook.metadata.quorum.MetadataQuorum}, implemented today for one node by {@link
 * io.brook.metadata.quorum.LocalMetadataQuorum} on the local journal, and later by the Raft quorum.
 */
package io.brook.metadata.quorum;
