/**
 * Idempotent-producer state per partition (KIP-98): duplicate detection, sequence and epoch checks,
 * and the {@code .snapshot} files that let a partition rebuild that state quickly after a restart.
 */
package io.brook.storage.producer;
