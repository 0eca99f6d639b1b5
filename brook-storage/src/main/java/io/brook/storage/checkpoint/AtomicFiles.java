package io.brook.storage.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small file so that a crash at any point leaves either the complete old content or the
 * complete new content, never a mix or an empty file.
 *
 * <p>The sequence is: write {@code <file>.tmp}, fsync it, rename it over {@code <file>} with {@link
 * StandardCopyOption#ATOMIC_MOVE}, then fsync the parent directory so that the rename itself is
 * durable. A crash before the rename can leave a stale {@code .tmp} file behind, which the next
 * write truncates and reuses. Directory fsync needs a POSIX file system (Linux, macOS).
 *
 * <p>Writers of one file must take turns (its owner serializes them): they share its temporary
 * file, so one would truncate or rename it under the other.
 *
 * <p>{@link #writeUnsynced} skips both fsyncs, for files whose content can be rebuilt after a crash
 * and that are made durable later with {@link #sync}: readers of the live system still see the old
 * or the new content, never a mix, but after a power loss the file may be old, new, or (on some
 * file systems, for an unsynced rename) empty.
 */
public final class AtomicFiles {
  /** The suffix of the temporary file written next to the target before the rename. */
  public static final String TMP_SUFFIX = ".tmp";

  private AtomicFiles() {}

  /** The temporary sibling that {@link #write} uses for {@code file}. */
  public static Path tmpFileFor(Path file) {
    return file.resolveSibling(file.getFileName() + TMP_SUFFIX);
  }

  /** Durably replaces {@code file} with {@code content}. */
  public static void write(Path file, byte[] content) throws IOException {
    replace(file, content, true);
    fsyncDirectory(file.toAbsolutePath().getParent());
  }

  /**
   * Replaces {@code file} with {@code content} atomically for running readers but without any
   * fsync; {@link #sync} makes it durable.
   */
  public static void writeUnsynced(Path file, byte[] content) throws IOException {
    replace(file, content, false);
  }

  /** Forces {@code file}'s content and then its directory entry to disk. */
  public static void sync(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      channel.force(true);
    }
    fsyncDirectory(file.toAbsolutePath().getParent());
  }

  private static void replace(Path file, byte[] content, boolean force) throws IOException {
    Path tmp = tmpFileFor(file);
    try {
      try (FileChannel channel =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        if (force) {
          channel.force(true);
        }
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** Makes creations, renames and deletions of entries in {@code dir} durable. */
  public static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
