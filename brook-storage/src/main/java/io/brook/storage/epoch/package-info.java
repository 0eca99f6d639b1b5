/**
 * The leader-epoch cache: which offset each leader epoch of a partition started at, persisted in
 * {@code leader-epoch-checkpoint}, answering OffsetForLeaderEpoch for replica truncation.
 */
package io.brook.storage.epoch;
