/**
 * Brook's partition log: an append-only directory of segment files per partition, with sparse
 * offset and time indexes, crash recovery, a leader-epoch cache and producer state. Knows nothing
 * about sockets, requests or other brokers.
 */
package io.brook.storage;
