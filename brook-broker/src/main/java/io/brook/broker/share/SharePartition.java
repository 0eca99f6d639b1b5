package io.brook.broker.share;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The delivery state of one partition for one share group, kept by the partition's leader
 * (KIP-932's share-partition).
 *
 * <p>Offsets below the <b>start offset</b> are done: acknowledged or archived. From the start
 * offset up to the <b>end offset</b> every record has a state: AVAILABLE (to be delivered),
 * ACQUIRED (delivered to one consumer, locked until it acknowledges or the lock expires),
 * ACKNOWLEDGED or ARCHIVED (done, waiting for the start offset to pass them). Offsets at or past
 * the end offset have not been delivered yet. The window from start to end holds at most {@code
 * group.share.partition.max.record.locks} offsets, so a consumer that holds records back stops the
 * partition from handing out more than that many past them. Each record counts its deliveries: a
 * record that comes back (released, or its lock expired) after {@code
 * group.share.delivery.count.limit} deliveries is archived instead of delivered again, and the
 * records behind it keep flowing.
 *
 * <p>The states are kept in parallel arrays used as a ring (offset modulo capacity), grown by
 * doubling up to the window's limit, so no object is made per record. Methods are synchronized:
 * fetches and acknowledgements come from the network threads, lock expiry from the broker's
 * scheduler; each call is short (at most one pass over the window).
 */
public final class SharePartition {
  /** Kafka's record states (and their codes in the share-group state records). */
  public enum RecordState {
    AVAILABLE,
    ACQUIRED,
    ACKNOWLEDGED,
    ARCHIVED
  }

  private static final byte AVAILABLE = 0;
  private static final byte ACQUIRED = 1;
  private static final byte ACKNOWLEDGED = 2;
  private static final byte ARCHIVED = 3;
  private static final int INITIAL_CAPACITY = 64;

  /** Kafka's codes of the durable states (share-group state records and APIs). */
  private static final byte DURABLE_AVAILABLE = 0;

  private static final byte DURABLE_ACKNOWLEDGED = 2;
  private static final byte DURABLE_ARCHIVED = 4;

  private final int maxInFlight;
  private final int deliveryCountLimit;
  private final long lockDurationMs;
  private final LongSupplier clock;

  private long startOffset;
  private long endOffset;
  private byte[] states = new byte[0];
  private short[] deliveries = new short[0];
  private long[] deadlines = new long[0];
  private String[] owners = new String[0];

  /** The earliest lock deadline, or Long.MAX_VALUE when nothing is acquired (expiry is cheap). */
  private long nextDeadline = Long.MAX_VALUE;

  public SharePartition(long startOffset, ShareLimits limits, LongSupplier clock) {
    this.startOffset = startOffset;
    this.endOffset = startOffset;
    this.maxInFlight = limits.maxRecordLocks();
    this.deliveryCountLimit = limits.deliveryCountLimit();
    this.lockDurationMs = limits.recordLockDurationMs();
    this.clock = clock;
  }

  public synchronized long startOffset() {
    return startOffset;
  }

  public synchronized long endOffset() {
    return endOffset;
  }

  /** The state of {@code offset} (AVAILABLE past the end, ARCHIVED or ACKNOWLEDGED below start). */
  public synchronized RecordState state(long offset) {
    if (offset >= endOffset) {
      return RecordState.AVAILABLE;
    }
    if (offset < startOffset) {
      return RecordState.ARCHIVED;
    }
    return RecordState.values()[states[slot(offset)]];
  }

  /** How often {@code offset} has been delivered (0 outside the window). */
  public synchronized int deliveryCount(long offset) {
    return offset < startOffset || offset >= endOffset ? 0 : deliveries[slot(offset)];
  }

  /** Records currently acquired by consumers. */
  public synchronized int acquiredCount() {
    int count = 0;
    for (long o = startOffset; o < endOffset; o++) {
      if (states[slot(o)] == ACQUIRED) {
        count++;
      }
    }
    return count;
  }

  /**
   * Where the next fetch should read from: the first available record in the window, else the end
   * offset if the window has room, else -1 (every record in the window is taken).
   */
  public synchronized long nextFetchOffset() {
    for (long o = startOffset; o < endOffset; o++) {
      if (states[slot(o)] == AVAILABLE) {
        return o;
      }
    }
    return endOffset - startOffset < maxInFlight ? endOffset : -1;
  }

  /** Whether a fetch could acquire something below {@code highWatermark} now. */
  public synchronized boolean hasAvailable(long highWatermark) {
    long next = nextFetchOffset();
    return next >= 0 && next < highWatermark;
  }

  /**
   * Acquires, for {@code memberId}, the available records among {@code [fromOffset, lastOffset]}
   * (the offsets of the batches a fetch read), at most {@code maxRecords} of them and none past the
   * window's limit. Offsets in that range that hold no record are acquired too; the consumer
   * acknowledges them as gaps.
   *
   * @return the acquired ranges, each with one delivery count, in offset order
   */
  public synchronized List<AcquiredRange> acquire(
      String memberId, long fromOffset, long lastOffset, int maxRecords) {
    List<AcquiredRange> ranges = new ArrayList<>();
    long now = clock.getAsLong();
    long last = Math.min(lastOffset, startOffset + maxInFlight - 1);
    int acquired = 0;
    long rangeFirst = -1;
    long rangeLast = -1;
    short rangeCount = 0;
    for (long o = Math.max(fromOffset, startOffset); o <= last && acquired < maxRecords; o++) {
      if (o >= endOffset) {
        extendTo(o + 1);
      }
      int s = slot(o);
      if (states[s] != AVAILABLE) {
        continue;
      }
      states[s] = ACQUIRED;
      deliveries[s]++;
      owners[s] = memberId;
      deadlines[s] = now + lockDurationMs;
      acquired++;
      if (rangeFirst >= 0 && rangeLast == o - 1 && rangeCount == deliveries[s]) {
        rangeLast = o;
      } else {
        if (rangeFirst >= 0) {
          ranges.add(new AcquiredRange(rangeFirst, rangeLast, rangeCount));
        }
        rangeFirst = o;
        rangeLast = o;
        rangeCount = deliveries[s];
      }
    }
    if (rangeFirst >= 0) {
      ranges.add(new AcquiredRange(rangeFirst, rangeLast, rangeCount));
      nextDeadline = Math.min(nextDeadline, now + lockDurationMs);
    }
    return ranges;
  }

  /**
   * Applies one acknowledgement batch of {@code memberId}: {@code types} holds one type for the
   * whole range or one per offset. The batch applies whole or not at all: every offset must be
   * acquired by this member, else INVALID_RECORD_STATE and nothing changes.
   *
   * @return NONE, INVALID_RECORD_STATE, or INVALID_REQUEST for a malformed batch
   */
  public synchronized Errors acknowledge(
      String memberId, long firstOffset, long lastOffset, List<Byte> types) {
    long count = lastOffset - firstOffset + 1;
    if (firstOffset < 0 || count <= 0 || (types.size() != 1 && types.size() != count)) {
      return Errors.INVALID_REQUEST;
    }
    for (Byte code : types) {
      if (AckType.of(code) == null) {
        return Errors.INVALID_REQUEST;
      }
    }
    if (firstOffset < startOffset || lastOffset >= endOffset) {
      return Errors.INVALID_RECORD_STATE;
    }
    for (long o = firstOffset; o <= lastOffset; o++) {
      int s = slot(o);
      if (states[s] != ACQUIRED || !memberId.equals(owners[s])) {
        return Errors.INVALID_RECORD_STATE;
      }
    }
    long now = clock.getAsLong();
    for (long o = firstOffset; o <= lastOffset; o++) {
      AckType type = AckType.of(types.get(types.size() == 1 ? 0 : (int) (o - firstOffset)));
      int s = slot(o);
      switch (type) {
        case ACCEPT -> finish(s, ACKNOWLEDGED);
        case GAP, REJECT -> finish(s, ARCHIVED);
        case RELEASE -> release(s);
        case RENEW -> {
          deadlines[s] = now + lockDurationMs;
          nextDeadline = Math.min(nextDeadline, deadlines[s]);
        }
      }
    }
    advanceStart();
    return Errors.NONE;
  }

  /**
   * Releases every record {@code memberId} holds (its share session closed): they are available
   * again, or archived if they reached the delivery limit.
   *
   * @return how many were released
   */
  public synchronized int releaseAll(String memberId) {
    int released = 0;
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] == ACQUIRED && memberId.equals(owners[s])) {
        release(s);
        released++;
      }
    }
    advanceStart();
    return released;
  }

  /**
   * Releases the records whose acquisition lock expired.
   *
   * @return how many were released
   */
  public synchronized int expireLocks() {
    long now = clock.getAsLong();
    if (now < nextDeadline) {
      return 0;
    }
    int released = 0;
    long next = Long.MAX_VALUE;
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] != ACQUIRED) {
        continue;
      }
      if (deadlines[s] <= now) {
        release(s);
        released++;
      } else {
        next = Math.min(next, deadlines[s]);
      }
    }
    nextDeadline = next;
    advanceStart();
    return released;
  }

  /**
   * The log start moved past records of the window (retention, DeleteRecords): they can never be
   * delivered, so the start offset moves to {@code logStartOffset}.
   *
   * @return whether the start offset moved
   */
  public synchronized boolean moveStartTo(long logStartOffset) {
    if (logStartOffset <= startOffset) {
      return false;
    }
    for (long o = startOffset; o < Math.min(endOffset, logStartOffset); o++) {
      clear(slot(o));
    }
    startOffset = logStartOffset;
    endOffset = Math.max(endOffset, logStartOffset);
    return true;
  }

  /**
   * What the share coordinator keeps of this share-partition: the start offset and the window as
   * runs of one state and delivery count.
   */
  public record Snapshot(
      long startOffset, List<WriteShareGroupStateRequestData.StateBatch> batches) {}

  /**
   * The durable part of the state. An acquisition is not durable (Kafka writes none either): an
   * acquired record is written as available with its delivery count, so after a failover it is
   * delivered again and its count goes on from there.
   */
  public synchronized Snapshot snapshot() {
    List<WriteShareGroupStateRequestData.StateBatch> batches = new ArrayList<>();
    long first = -1;
    long last = -1;
    byte runState = 0;
    short runCount = 0;
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      byte durable = durable(states[s]);
      if (first >= 0 && durable == runState && deliveries[s] == runCount) {
        last = o;
        continue;
      }
      if (first >= 0) {
        batches.add(stateBatch(first, last, runState, runCount));
      }
      first = o;
      last = o;
      runState = durable;
      runCount = deliveries[s];
    }
    if (first >= 0) {
      batches.add(stateBatch(first, last, runState, runCount));
    }
    return new Snapshot(startOffset, batches);
  }

  /**
   * Restores the window the share coordinator kept (this share-partition was just created at the
   * kept start offset). Acknowledged and archived records stay done; every other record is
   * available with its delivery count. Batches past the window's limit are left out (their records
   * start over), as are those below the start offset.
   */
  public synchronized void restore(List<ReadShareGroupStateResponseData.StateBatch> batches) {
    long limit = startOffset + maxInFlight;
    for (ReadShareGroupStateResponseData.StateBatch b : batches) {
      long first = Math.max(b.firstOffset(), startOffset);
      long last = Math.min(b.lastOffset(), limit - 1);
      if (first > last) {
        continue;
      }
      if (last >= endOffset) {
        extendTo(last + 1);
      }
      byte state =
          switch (b.deliveryState()) {
            case DURABLE_ACKNOWLEDGED -> ACKNOWLEDGED;
            case DURABLE_ARCHIVED -> ARCHIVED;
            default -> AVAILABLE;
          };
      short count = (short) Math.max(0, b.deliveryCount());
      for (long o = first; o <= last; o++) {
        int s = slot(o);
        states[s] = state;
        deliveries[s] = count;
      }
    }
    advanceStart();
  }

  private static byte durable(byte state) {
    return switch (state) {
      case ACKNOWLEDGED -> DURABLE_ACKNOWLEDGED;
      case ARCHIVED -> DURABLE_ARCHIVED;
      default -> DURABLE_AVAILABLE;
    };
  }

  private static WriteShareGroupStateRequestData.StateBatch stateBatch(
      long first, long last, byte state, short count) {
    return new WriteShareGroupStateRequestData.StateBatch()
        .setFirstOffset(first)
        .setLastOffset(last)
        .setDeliveryState(state)
        .setDeliveryCount(count);
  }

  private void release(int s) {
    owners[s] = null;
    states[s] = deliveries[s] >= deliveryCountLimit ? ARCHIVED : AVAILABLE;
  }

  private void finish(int s, byte state) {
    owners[s] = null;
    states[s] = state;
  }

  /** The start offset passes the done records at the front of the window. */
  private void advanceStart() {
    while (startOffset < endOffset) {
      int s = slot(startOffset);
      if (states[s] != ACKNOWLEDGED && states[s] != ARCHIVED) {
        return;
      }
      clear(s);
      startOffset++;
    }
  }

  private void clear(int s) {
    states[s] = AVAILABLE;
    deliveries[s] = 0;
    deadlines[s] = 0;
    owners[s] = null;
  }

  private void extendTo(long newEnd) {
    int needed = (int) (newEnd - startOffset);
    if (needed > states.length) {
      grow(needed);
    }
    // Slots past the old end were cleared when the start offset last passed them (or are new).
    endOffset = newEnd;
  }

  private void grow(int needed) {
    int capacity = Math.max(INITIAL_CAPACITY, states.length);
    while (capacity < needed) {
      capacity *= 2;
    }
    capacity = Math.min(capacity, Math.max(needed, maxInFlight));
    byte[] newStates = new byte[capacity];
    short[] newDeliveries = new short[capacity];
    long[] newDeadlines = new long[capacity];
    String[] newOwners = new String[capacity];
    for (long o = startOffset; o < endOffset; o++) {
      int from = slot(o);
      int to = (int) (o % capacity);
      newStates[to] = states[from];
      newDeliveries[to] = deliveries[from];
      newDeadlines[to] = deadlines[from];
      newOwners[to] = owners[from];
    }
    states = newStates;
    deliveries = newDeliveries;
    deadlines = newDeadlines;
    owners = newOwners;
  }

  private int slot(long offset) {
    return (int) (offset % states.length);
  }
}
