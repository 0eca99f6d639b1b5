/**
 * JMH microbenchmarks of the storage engine ({@code brook-storage}): append throughput with and
 * without a final fsync, sequential zero-copy reads, and offset lookups in the index and the log.
 * Results and the commands that produced them are in {@code docs/performance.md}.
 */
package io.brook.bench;
