/**
 * Where controller operations become durable and visible: {@link
 * io.brook.metadata.quorum.MetadataQuorum}, implemented by the Raft quorum in brook-controller on
 * every node (a single node is a one-voter group).
 */
package io.brook.metadata.quorum;
