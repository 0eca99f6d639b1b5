package io.brook.storage.remote;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;

/**
 * Bytes of remote segments fetched ahead of sequential readers, shared by every tiered partition of
 * a broker and bounded in bytes and in entries.
 *
 * <p>Why: a remote read is one ranged GET per partition and fetch, and each GET costs the broker
 * (the S3 SDK's request pipeline: endpoint and auth-scheme resolution, signing, a connection from
 * the pool) and the store far more than moving its megabyte. A consumer replaying a partition asks
 * for the batches right after the ones it was sent, so a read that fetches {@link #bytes()} beyond
 * its limit serves the next few fetches of that consumer from memory.
 *
 * <p>A read leaves behind what it fetched but did not send, with the offset and segment position
 * where it stopped ({@link #keep}); the next read of the partition from exactly that offset takes
 * it ({@link #take}) and reads ahead again. A read from anywhere else (another consumer, a seek)
 * finds nothing to take, reads only what it sends, and leaves its own position behind: read-ahead
 * starts only once a partition is read in sequence. Entries leave least recently kept first when
 * the bytes held exceed the capacity: the bytes counted are those of each entry's whole backing
 * array, which the read's answer shares until it is sent.
 */
final class RemoteReadAhead {
  /** No read-ahead: every read fetches only what it sends (and its index gap). */
  static final RemoteReadAhead NONE = new RemoteReadAhead(0, 0, 0);

  /** What a read of a partition left behind. */
  record Held(String segmentId, long nextOffset, long position, ByteBuffer bytes) {
    long heldBytes() {
      return bytes.hasArray() ? bytes.array().length : bytes.capacity();
    }
  }

  private final int bytes;
  private final long capacityBytes;
  private final int maxEntries;

  // Guarded by this; least recently kept first.
  private final LinkedHashMap<TopicIdPartition, Held> held = new LinkedHashMap<>();
  private long heldBytes;

  /**
   * @param bytes how far past its limit a sequential read fetches
   * @param capacityBytes the bytes held at most, over all partitions
   * @param maxEntries partitions remembered at most (an entry may hold no bytes)
   */
  RemoteReadAhead(int bytes, long capacityBytes, int maxEntries) {
    this.bytes = bytes;
    this.capacityBytes = capacityBytes;
    this.maxEntries = maxEntries;
  }

  /** How far past its limit a read that continues the previous one fetches; 0: none. */
  int bytes() {
    return bytes;
  }

  /**
   * Takes what the last read of {@code tp} left if it stopped at {@code fetchOffset} in {@code
   * segmentId}; null otherwise (and the entry stays for the reader it belongs to).
   */
  synchronized Held take(TopicIdPartition tp, String segmentId, long fetchOffset) {
    Held h = held.get(tp);
    if (h == null || h.nextOffset() != fetchOffset || !h.segmentId().equals(segmentId)) {
      return null;
    }
    held.remove(tp);
    heldBytes -= h.heldBytes();
    return h;
  }

  /** Leaves what a read of {@code tp} fetched past what it sent, for the read that continues it. */
  synchronized void keep(TopicIdPartition tp, Held h) {
    if (maxEntries == 0) {
      return;
    }
    Held previous = held.remove(tp);
    if (previous != null) {
      heldBytes -= previous.heldBytes();
    }
    if (h.heldBytes() > capacityBytes) {
      h = new Held(h.segmentId(), h.nextOffset(), h.position(), ByteBuffer.allocate(0));
    }
    held.put(tp, h);
    heldBytes += h.heldBytes();
    Iterator<Map.Entry<TopicIdPartition, Held>> eldest = held.entrySet().iterator();
    while ((heldBytes > capacityBytes || held.size() > maxEntries) && eldest.hasNext()) {
      Held dropped = eldest.next().getValue();
      eldest.remove();
      heldBytes -= dropped.heldBytes();
    }
  }

  /** Bytes held now (whole backing arrays), for tests. */
  synchronized long heldBytes() {
    return heldBytes;
  }
}
