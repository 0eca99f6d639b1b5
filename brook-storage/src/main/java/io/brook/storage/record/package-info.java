/**
 * Reading the records inside a batch without trusting it: {@link
 * io.brook.storage.record.BatchRecordReader} walks a batch's records in place (uncompressed) or
 * through a decompression stream (compressed), one record at a time, checking every length against
 * the bytes that are really there and stopping once the batch inflates past {@link
 * io.brook.storage.record.RecordLimits}. Produce validation, the log cleaner, time lookups and
 * transaction markers read records only through it, so no length field and no compression ratio
 * decides how much memory the broker allocates.
 */
package io.brook.storage.record;
