package io.brook.storage.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An object store in memory, with the semantics of the real ones (a version is a hash of the
 * content, as an S3 ETag or {@link LocalFsSegmentStore}'s): for tests that run a store thousands of
 * times and would otherwise wait on fsyncs.
 */
final class InMemorySegmentStore extends ObjectSegmentStore {
  private final NavigableMap<String, byte[]> objects = new TreeMap<>();

  InMemorySegmentStore() {
    super("");
  }

  @Override
  protected synchronized void putFile(String key, Path file) throws IOException {
    objects.put(key, Files.readAllBytes(file));
  }

  @Override
  protected synchronized void putBytes(String key, byte[] bytes) {
    objects.put(key, bytes.clone());
  }

  @Override
  protected synchronized byte[] getRange(String key, long start, int length) throws IOException {
    byte[] object = objects.get(key);
    if (object == null) {
      throw new NoSuchFileException(key);
    }
    int from = (int) Math.min(start, object.length);
    return Arrays.copyOfRange(object, from, (int) Math.min(object.length, start + length));
  }

  @Override
  protected synchronized Optional<byte[]> getAll(String key, int maxBytes) throws IOException {
    byte[] object = objects.get(key);
    if (object != null && object.length > maxBytes) {
      throw new IOException("object " + key + " is larger than " + maxBytes + " bytes");
    }
    return Optional.ofNullable(object).map(byte[]::clone);
  }

  @Override
  protected synchronized Optional<StoredManifest> getVersioned(String key, int maxBytes)
      throws IOException {
    return getAll(key, maxBytes).map(bytes -> new StoredManifest(bytes, contentVersion(bytes)));
  }

  @Override
  protected synchronized String putBytesIf(
      String key, byte[] bytes, Optional<String> expectedVersion) throws IOException {
    Optional<String> current =
        Optional.ofNullable(objects.get(key)).map(ObjectSegmentStore::contentVersion);
    if (!current.equals(expectedVersion)) {
      throw new ManifestConflictException(
          key + " is version " + current.orElse("(none)") + ", not " + expectedVersion);
    }
    objects.put(key, bytes.clone());
    return contentVersion(bytes);
  }

  @Override
  protected synchronized void delete(String key) {
    objects.remove(key);
  }

  @Override
  protected synchronized List<String> list(String keyPrefix) {
    List<String> keys = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : objects.tailMap(keyPrefix, true).entrySet()) {
      if (!e.getKey().startsWith(keyPrefix)) {
        break;
      }
      keys.add(e.getKey());
    }
    return keys;
  }

  @Override
  public void close() {}
}
