package io.brook.storage.producer;

/**
 * One producer batch's sequence range and where it landed in the log.
 *
 * @param firstSeq the batch's base sequence
 * @param lastSeq the batch's last sequence; below {@code firstSeq} when the range wrapped past
 *     {@link Integer#MAX_VALUE} to 0
 * @param firstOffset the offset of the batch's first record
 * @param lastOffset the offset of the batch's last record
 * @param maxTimestamp the batch's max timestamp
 */
public record BatchMetadata(
    int firstSeq, int lastSeq, long firstOffset, long lastOffset, long maxTimestamp) {}
