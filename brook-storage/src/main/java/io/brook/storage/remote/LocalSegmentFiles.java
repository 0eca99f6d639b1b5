package io.brook.storage.remote;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What a copy uploads for one rolled segment: its log, its indexes (their entries, in Kafka's file
 * layout, taken from the live index rather than the file, which may be preallocated), the
 * transaction index if it has one, the producer snapshot taken where the next segment starts (so a
 * replica rebuilding from remote data knows the producers), and the leader epochs up to the
 * segment's end (checkpoint text).
 */
public record LocalSegmentFiles(
    Path log,
    byte[] offsetIndex,
    byte[] timeIndex,
    Optional<Path> transactionIndex,
    Optional<Path> producerSnapshot,
    byte[] leaderEpochCheckpoint) {}
