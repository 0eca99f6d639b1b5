package io.brook.storage.log;

import io.brook.storage.segment.FileSlice;

/**
 * What a read found.
 *
 * @param fetchOffsetMetadata the requested offset and where it sits on disk
 * @param slice the file range to send (empty when the reader is caught up)
 * @param highWatermark the high watermark when the read was served
 * @param logStartOffset the log start offset when the read was served
 * @param logEndOffset the log end offset when the read was served
 */
public record LogReadResult(
    LogOffsetMetadata fetchOffsetMetadata,
    FileSlice slice,
    long highWatermark,
    long logStartOffset,
    long logEndOffset) {}
