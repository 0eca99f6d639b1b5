package io.brook.storage.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Remote storage in a local directory: for development ({@code bin/brook dev}), single machines and
 * tests. Objects are files under {@code rsm.config.dir}; every write goes to a temporary file, is
 * fsynced and renamed into place, so a crash leaves either the old object or the new one. A
 * conditional manifest replacement compares and renames under a lock: a lock object in this JVM and
 * an OS file lock on a hidden {@code .lock-manifest} next to the manifest for other processes
 * sharing the directory. A manifest's version is the SHA-256 of its bytes.
 */
public final class LocalFsSegmentStore extends ObjectSegmentStore {
  /** The {@code rsm.config.} key naming the directory. */
  public static final String DIR_CONFIG = "dir";

  private static final String TMP = ".tmp-";

  /** Hidden files (temporary copies, lock files) are no objects. */
  private static final String HIDDEN = ".";

  private static final String LOCK_PREFIX = ".lock-";

  /** One lock object per manifest path in this JVM (file locks are per process). */
  private static final ConcurrentHashMap<Path, Object> MANIFEST_LOCKS = new ConcurrentHashMap<>();

  private final Path root;

  /** For {@code remote.log.storage.manager.class.name}: settings are the {@code rsm.config.*}. */
  public LocalFsSegmentStore(Map<String, String> settings) throws IOException {
    this(Path.of(required(settings, DIR_CONFIG)));
  }

  public LocalFsSegmentStore(Path root) throws IOException {
    super("");
    this.root = root.toAbsolutePath();
    Files.createDirectories(this.root);
  }

  private static String required(Map<String, String> settings, String name) {
    String value = settings.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("rsm.config." + name + " must be set");
    }
    return value;
  }

  public Path root() {
    return root;
  }

  private Path path(String key) {
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root)) {
      throw new IllegalArgumentException("object key outside the store: " + key);
    }
    return p;
  }

  @Override
  protected void putFile(String key, Path file) throws IOException {
    Path target = path(key);
    Path tmp = tmpFor(target);
    Files.copy(file, tmp, StandardCopyOption.REPLACE_EXISTING);
    publish(tmp, target);
  }

  @Override
  protected void putBytes(String key, byte[] bytes) throws IOException {
    Path target = path(key);
    Path tmp = tmpFor(target);
    Files.write(tmp, bytes);
    publish(tmp, target);
  }

  private static Path tmpFor(Path target) throws IOException {
    Files.createDirectories(target.getParent());
    return target.resolveSibling(TMP + UUID.randomUUID());
  }

  private static void publish(Path tmp, Path target) throws IOException {
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
    try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  @Override
  protected byte[] getRange(String key, long start, int length) throws IOException {
    try (FileChannel ch = FileChannel.open(path(key), StandardOpenOption.READ)) {
      long size = ch.size();
      int n = (int) Math.max(0, Math.min(length, size - start));
      ByteBuffer buffer = ByteBuffer.allocate(n);
      while (buffer.hasRemaining()) {
        if (ch.read(buffer, start + buffer.position()) < 0) {
          break;
        }
      }
      return buffer.array();
    }
  }

  @Override
  protected Optional<byte[]> getAll(String key, int maxBytes) throws IOException {
    Path p = path(key);
    try {
      if (Files.size(p) > maxBytes) {
        throw new IOException("object " + key + " is larger than " + maxBytes + " bytes");
      }
      return Optional.of(Files.readAllBytes(p));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  protected Optional<StoredManifest> getVersioned(String key, int maxBytes) throws IOException {
    return getAll(key, maxBytes).map(bytes -> new StoredManifest(bytes, contentVersion(bytes)));
  }

  @Override
  protected String putBytesIf(String key, byte[] bytes, Optional<String> expectedVersion)
      throws IOException {
    Path target = path(key);
    Files.createDirectories(target.getParent());
    Path lockFile = target.resolveSibling(LOCK_PREFIX + target.getFileName());
    synchronized (MANIFEST_LOCKS.computeIfAbsent(target, p -> new Object())) {
      try (FileChannel channel =
              FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = channel.lock()) {
        Optional<String> current =
            getAll(key, RemoteLogManifest.MAX_BYTES).map(ObjectSegmentStore::contentVersion);
        if (!current.equals(expectedVersion)) {
          throw new ManifestConflictException(
              key + " is version " + current.orElse("(none)") + ", not " + expectedVersion);
        }
        putBytes(key, bytes);
        return contentVersion(bytes);
      }
    }
  }

  @Override
  protected void delete(String key) throws IOException {
    Files.deleteIfExists(path(key));
  }

  @Override
  protected List<String> list(String keyPrefix) throws IOException {
    Path dir = path(keyPrefix.isEmpty() ? "." : keyPrefix);
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> files = Files.list(dir)) {
      files
          .filter(f -> !f.getFileName().toString().startsWith(HIDDEN))
          .forEach(f -> out.add(keyPrefix + f.getFileName()));
    }
    out.sort(null);
    return out;
  }

  @Override
  public void close() {}
}
