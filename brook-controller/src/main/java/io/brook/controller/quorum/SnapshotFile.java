package io.brook.controller.quorum;

import com.fasterxml.jackson.databind.JsonNode;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RecordJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A snapshot of the metadata image at one Raft log index, in one file.
 *
 * <p>Layout, big-endian: {@code magic:int32 "BRKS", version:int8 (1), term:int64, index:int64,
 * imageOffset:int64, length:int32, records:JSON array of length bytes (the image's {@link
 * MetadataImage#toRecords()}), crc:int32}, where {@code crc} is the CRC32C of every byte before it.
 * A file that is short, has the wrong magic or version, or fails the CRC is refused with an {@link
 * IOException}: Ratis then loads an older snapshot or fetches one from the leader.
 *
 * <p>Written to a temporary file, forced to disk and renamed into place, so a crash leaves either
 * the old file set or the complete new file.
 */
final class SnapshotFile {
  static final int MAGIC = 0x42524b53;
  static final byte VERSION = 1;
  private static final int HEADER_BYTES = 4 + 1 + 8 + 8 + 8 + 4;

  /** What a snapshot file holds. */
  record Contents(long term, long index, MetadataImage image) {}

  private SnapshotFile() {}

  static void write(Path file, long term, long index, MetadataImage image) throws IOException {
    byte[] json = RecordJson.MAPPER.writeValueAsBytes(RecordJson.toJson(image.toRecords()));
    ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES + json.length + 4);
    buffer
        .putInt(MAGIC)
        .put(VERSION)
        .putLong(term)
        .putLong(index)
        .putLong(image.offset())
        .putInt(json.length)
        .put(json);
    CRC32C crc = new CRC32C();
    crc.update(buffer.array(), 0, buffer.position());
    buffer.putInt((int) crc.getValue());
    buffer.flip();
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  static Contents read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    if (bytes.length < HEADER_BYTES + 4) {
      throw new IOException("snapshot " + file + " is truncated: " + bytes.length + " bytes");
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = buffer.getInt(bytes.length - 4);
    if (stored != (int) crc.getValue()) {
      throw new IOException("snapshot " + file + " fails its CRC32C check");
    }
    if (buffer.getInt() != MAGIC) {
      throw new IOException("snapshot " + file + " has the wrong magic number");
    }
    byte version = buffer.get();
    if (version != VERSION) {
      throw new IOException("snapshot " + file + " has unknown version " + version);
    }
    long term = buffer.getLong();
    long index = buffer.getLong();
    long imageOffset = buffer.getLong();
    int length = buffer.getInt();
    if (length != bytes.length - HEADER_BYTES - 4) {
      throw new IOException("snapshot " + file + " has a wrong length " + length);
    }
    JsonNode json = RecordJson.MAPPER.readTree(bytes, HEADER_BYTES, length);
    List<MetadataRecord> records = RecordJson.listFromJson(json);
    return new Contents(term, index, MetadataImage.EMPTY.apply(records, imageOffset));
  }
}
