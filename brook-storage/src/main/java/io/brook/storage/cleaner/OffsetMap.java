package io.brook.storage.cleaner;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The cleaner's key → latest offset map, in a fixed budget of memory: an open-addressing hash table
 * over one {@link ByteBuffer}, storing a 16-byte MD5 digest of each key instead of the key.
 *
 * <p>Layout: {@code capacity} slots of {@value #SLOT_BYTES} bytes, each a 16-byte key digest
 * followed by an 8-byte {@code offset + 1}; a slot whose offset field is 0 is empty (offsets are
 * never negative, so {@code offset + 1} is never 0). Collisions probe linearly. Two distinct keys
 * share a digest with probability about {@code n^2 / 2^129}: for a billion keys, 1 in 10^21, the
 * same trade Kafka's {@code SkimpyOffsetMap} makes.
 *
 * <p>The map accepts keys until it holds {@code loadFactor * capacity} of them ({@link #isFull});
 * the cleaner then ends its pass at the last fully indexed batch and cleans the rest in a later
 * pass, so memory never grows with the log.
 *
 * <p>Not thread-safe: one map per cleaner thread, reused pass after pass. Call {@link #clear}
 * before the first use: it allocates the memory.
 */
public final class OffsetMap {
  /** A 16-byte digest plus an 8-byte offset. */
  public static final int SLOT_BYTES = 24;

  private static final int DIGEST_BYTES = 16;

  /** Allocated by the first {@link #clear}, so a broker without compacted topics never pays. */
  private ByteBuffer slots;

  private final int capacity;
  private final int maxEntries;
  private final MessageDigest md5;
  private final byte[] digest = new byte[DIGEST_BYTES];
  private int entries;
  private long latestOffset = -1;
  private long lookups;
  private long probes;

  /**
   * @param memoryBytes the budget; the map uses {@code memoryBytes / 24} slots of it
   * @param loadFactor the share of slots that may fill before {@link #isFull}
   */
  public OffsetMap(int memoryBytes, double loadFactor) {
    this.capacity = memoryBytes / SLOT_BYTES;
    if (capacity < 2) {
      throw new IllegalArgumentException("an offset map needs at least 48 bytes");
    }
    // One slot always stays empty so that a probe for an absent key ends.
    this.maxEntries = Math.max(1, Math.min(capacity - 1, (int) (capacity * loadFactor)));
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide MD5", e);
    }
  }

  /** Records {@code offset} as the latest for {@code key}; the key buffer is not modified. */
  public void put(ByteBuffer key, long offset) {
    hash(key);
    int slot = findSlot();
    int at = slot * SLOT_BYTES;
    if (slots.getLong(at + DIGEST_BYTES) == 0) {
      slots.put(at, digest);
      entries++;
    }
    slots.putLong(at + DIGEST_BYTES, offset + 1);
    latestOffset = Math.max(latestOffset, offset);
  }

  /** The latest offset recorded for {@code key}, or -1. */
  public long get(ByteBuffer key) {
    hash(key);
    long stored = slots.getLong(findSlot() * SLOT_BYTES + DIGEST_BYTES);
    return stored - 1;
  }

  /** Whether the map holds as many keys as its load factor allows. */
  public boolean isFull() {
    return entries >= maxEntries;
  }

  public int size() {
    return entries;
  }

  /** How many keys the map takes before {@link #isFull}. */
  public int maxEntries() {
    return maxEntries;
  }

  /** The largest offset put since the last {@link #clear}, or -1. */
  public long latestOffset() {
    return latestOffset;
  }

  /** Average slots examined per lookup, for the cleaner's log line. */
  public double averageProbes() {
    return lookups == 0 ? 0 : (double) probes / lookups;
  }

  /** Empties the map for the next pass (zeroing is what marks slots empty). */
  public void clear() {
    if (slots == null) {
      slots = ByteBuffer.allocate(capacity * SLOT_BYTES);
    } else {
      Arrays.fill(slots.array(), (byte) 0);
    }
    entries = 0;
    latestOffset = -1;
    lookups = 0;
    probes = 0;
  }

  private void hash(ByteBuffer key) {
    md5.update(key.duplicate());
    try {
      md5.digest(digest, 0, DIGEST_BYTES);
    } catch (DigestException e) {
      throw new IllegalStateException("MD5 digests are 16 bytes", e);
    }
  }

  /** The slot holding the current digest, or the empty slot where it would go. */
  private int findSlot() {
    long high = bytesToLong(0);
    long low = bytesToLong(8);
    int slot = (int) Math.floorMod(high ^ low, (long) capacity);
    lookups++;
    while (true) {
      probes++;
      int at = slot * SLOT_BYTES;
      if (slots.getLong(at + DIGEST_BYTES) == 0
          || (slots.getLong(at) == high && slots.getLong(at + 8) == low)) {
        return slot;
      }
      slot = slot + 1 == capacity ? 0 : slot + 1;
    }
  }

  private long bytesToLong(int from) {
    long value = 0;
    for (int i = from; i < from + 8; i++) {
      value = (value << 8) | (digest[i] & 0xFF);
    }
    return value;
  }
}
