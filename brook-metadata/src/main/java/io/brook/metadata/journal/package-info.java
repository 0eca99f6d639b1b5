/**
 * Single-node persistence of the metadata records: an append-only, checksummed journal file that is
 * replayed into a {@link io.brook.metadata.image.MetadataImage} at startup. The Raft quorum will
 * replace it for multi-node clusters; the records and the image stay the same.
 */
package io.brook.metadata.journal;
