/**
 * A segment's two sparse, memory-mapped indexes: {@link io.brook.storage.index.OffsetIndex} (offset
 * to file position) and {@link io.brook.storage.index.TimeIndex} (maximum timestamp so far to
 * offset). Each class documents its byte layout; both share their file handling, binary search and
 * concurrency rules.
 *
 * <p>In short: files are preallocated to {@code segment.index.bytes}, appended through a mapping
 * and trimmed to their entries when the segment rolls or closes. They are derived data, neither
 * checksummed nor repaired: {@code sanityCheck()} rejects a file an unclean shutdown left with
 * zero-filled entries, and the log rebuilds it from the segment. One writer at a time, under the
 * log's lock; lookups are lock-free from any number of threads and allocate only their result.
 */
package io.brook.storage.index;
