package io.brook.storage.manager;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS lock on {@code <dir>/.lock}, held while a broker uses the directory, so two
 * processes (or two brokers in one JVM) can never write the same logs. The kernel drops the lock
 * when the process dies, so a crash never leaves a stale lock behind.
 */
final class DataDirectoryLock implements AutoCloseable {
  static final String LOCK_FILE_NAME = ".lock";

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock or fails at once.
   *
   * @throws DirectoryInUseException if another process or broker holds it
   */
  static DataDirectoryLock acquire(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(LOCK_FILE_NAME);
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      channel.close();
      throw new DirectoryInUseException(
          "data directory "
              + dir.toAbsolutePath()
              + " is in use by another Brook process (could not lock "
              + file.getFileName()
              + "); stop it or choose another log.dirs");
    }
    return new DataDirectoryLock(file, channel, lock);
  }

  Path file() {
    return file;
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
