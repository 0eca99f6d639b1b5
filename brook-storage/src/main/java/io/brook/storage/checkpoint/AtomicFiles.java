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
        channel.force(true);
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
    fsyncDirectory(file.toAbsolutePath().getParent());
  }

  /** Makes creations, renames and deletions of entries in {@code dir} durable. */
  public static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
