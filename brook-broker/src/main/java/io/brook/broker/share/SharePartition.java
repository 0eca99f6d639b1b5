package io.brook.broker.share;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
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
 * <p>Two share-group configs ({@link ShareGroupConfig}, read when a record comes back) add to
 * Kafka's behaviour. With a <b>redelivery backoff</b> a record that comes back is AVAILABLE only
 * from a later time on (its deadline slot holds it), growing with its delivery count; fetches skip
 * it meanwhile and take the records behind it. With a <b>dead-letter topic</b> a record archived at
 * the delivery limit or rejected is first DEAD_LETTER: done for the consumers, but the start offset
 * does not pass it until the manager has written it to the dead-letter topic ({@link
 * #takeDeadLetters}, {@link #deadLettered}). That state is durable (a Brook-only state code), and
 * the manager writes a record to the topic only once the state saying it is due has been written,
 * so after a crash a record is either still in flight or owed to the topic (see docs/groups.md).
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
    ARCHIVED,
    /** Done for consumers, to be written to the group's dead-letter topic before it is archived. */
    DEAD_LETTER
  }

  /** Why a record goes to the dead-letter topic (its {@code brook.dlq.reason} header). */
  public enum DeadLetterReason {
    DELIVERY_LIMIT("delivery-limit"),
    REJECTED("rejected");

    private final String header;

    DeadLetterReason(String header) {
      this.header = header;
    }

    public String header() {
      return header;
    }
  }

  /**
   * A record owed to the dead-letter topic, handed to the manager to write.
   *
   * @param maybeWritten an earlier attempt may have written it (it failed, or the state was read
   *     back after a restart or leadership move): the topic must be checked before writing again
   */
  public record DeadLetter(
      long offset, DeadLetterReason reason, int deliveryCount, boolean maybeWritten) {}

  /** A record owed to the dead-letter topic, while it is. */
  private static final class PendingLetter {
    final DeadLetterReason reason;
    boolean durable;
    boolean writing;
    boolean maybeWritten;

    PendingLetter(DeadLetterReason reason) {
      this.reason = reason;
    }
  }

  private static final byte AVAILABLE = 0;
  private static final byte ACQUIRED = 1;
  private static final byte ACKNOWLEDGED = 2;
  private static final byte ARCHIVED = 3;
  private static final byte DEAD_LETTER = 4;
  private static final int INITIAL_CAPACITY = 64;

  /** Kafka's codes of the durable states (share-group state records and APIs). */
  private static final byte DURABLE_AVAILABLE = 0;

  private static final byte DURABLE_ACKNOWLEDGED = 2;
  private static final byte DURABLE_ARCHIVED = 4;

  /**
   * Brook's own durable codes: owed to the dead-letter topic, for each reason. Kafka has none (its
   * codes stop at 4); the share coordinator keeps the code as it is and counts it as not done.
   */
  static final byte DURABLE_DEAD_LETTER_LIMIT = 32;

  static final byte DURABLE_DEAD_LETTER_REJECTED = 33;

  private final int maxInFlight;
  private final ShareLimits limits;
  private final LongSupplier clock;
  private final Supplier<ShareGroupConfig> config;
  private final ShareGroupStats stats;

  /** The records owed to the dead-letter topic, by offset (rare: kept aside, not per slot). */
  private final TreeMap<Long, PendingLetter> deadLetters = new TreeMap<>();

  /** The earliest end of a redelivery backoff, or Long.MAX_VALUE when none is running. */
  private long nextBackoffEnd = Long.MAX_VALUE;

  private long startOffset;
  private long endOffset;
  private byte[] states = new byte[0];
  private short[] deliveries = new short[0];
  private long[] deadlines = new long[0];
  private String[] owners = new String[0];

  /** The earliest lock deadline, or Long.MAX_VALUE when nothing is acquired (expiry is cheap). */
  private long nextDeadline = Long.MAX_VALUE;

  /** Kafka's behaviour: no dead-letter topic, no redelivery backoff. */
  public SharePartition(long startOffset, ShareLimits limits, LongSupplier clock) {
    this(startOffset, limits, clock, () -> ShareGroupConfig.DEFAULTS, new ShareGroupStats());
  }

  /**
   * @param config the group's configs as they are now (read when records are acquired, come back or
   *     are rejected; its {@code share.partition.max.record.locks} when created)
   * @param stats the group's counters at this broker
   */
  public SharePartition(
      long startOffset,
      ShareLimits limits,
      LongSupplier clock,
      Supplier<ShareGroupConfig> config,
      ShareGroupStats stats) {
    this.startOffset = startOffset;
    this.endOffset = startOffset;
    this.maxInFlight = config.get().maxRecordLocks(limits);
    this.limits = limits;
    this.clock = clock;
    this.config = config;
    this.stats = stats;
  }

  /** The group's acquisition lock duration now (its config, else the broker's). */
  private long lockDurationMs() {
    return config.get().recordLockDurationMs(limits);
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
   * What the metrics show of this share-partition, in one pass: records in flight (the window from
   * the start offset to the end offset, done ones waiting for the start offset included), acquired
   * ones, and when the oldest acquisition began (Long.MAX_VALUE when none).
   */
  public record Gauges(long inFlight, long acquired, long oldestAcquiredAtMs) {}

  public synchronized Gauges gauges() {
    long acquired = 0;
    long oldest = Long.MAX_VALUE;
    long lockDurationMs = lockDurationMs();
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] == ACQUIRED) {
        acquired++;
        oldest = Math.min(oldest, deadlines[s] - lockDurationMs);
      }
    }
    return new Gauges(endOffset - startOffset, acquired, oldest);
  }

  /**
   * Where the next fetch should read from: the first available record in the window whose
   * redelivery backoff is over, else the end offset if the window has room, else -1 (every record
   * in the window is taken or waiting).
   */
  public synchronized long nextFetchOffset() {
    long now = clock.getAsLong();
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] == AVAILABLE && deadlines[s] <= now) {
        return o;
      }
    }
    return endOffset - startOffset < maxInFlight ? endOffset : -1;
  }

  /** When {@code offset} may be delivered again (0 when at once, or outside the window). */
  public synchronized long availableAtMs(long offset) {
    if (offset < startOffset || offset >= endOffset) {
      return 0;
    }
    int s = slot(offset);
    return states[s] == AVAILABLE ? deadlines[s] : 0;
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
    long lockDurationMs = lockDurationMs();
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
      if (states[s] != AVAILABLE || deadlines[s] > now) {
        continue; // taken, done, or waiting for its redelivery backoff
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
    ShareGroupConfig group = null;
    for (long o = firstOffset; o <= lastOffset; o++) {
      AckType type = AckType.of(types.get(types.size() == 1 ? 0 : (int) (o - firstOffset)));
      int s = slot(o);
      if (group == null && (type == AckType.REJECT || type == AckType.RELEASE)) {
        group = config.get();
      }
      switch (type) {
        case ACCEPT -> finish(s, ACKNOWLEDGED);
        case GAP -> finish(s, ARCHIVED);
        case REJECT -> archive(s, o, DeadLetterReason.REJECTED, group);
        case RELEASE -> release(s, o, now, group);
        case RENEW -> {
          deadlines[s] = now + lockDurationMs();
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
    long now = clock.getAsLong();
    ShareGroupConfig group = null;
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] == ACQUIRED && memberId.equals(owners[s])) {
        group = group == null ? config.get() : group;
        release(s, o, now, group);
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
    ShareGroupConfig group = null;
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] != ACQUIRED) {
        continue;
      }
      if (deadlines[s] <= now) {
        group = group == null ? config.get() : group;
        release(s, o, now, group);
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
   * Whether a redelivery backoff ended since the last call: records became available again, and the
   * fetches waiting on the partition should look.
   */
  public synchronized boolean backoffsEnded() {
    long now = clock.getAsLong();
    if (now < nextBackoffEnd) {
      return false;
    }
    long next = Long.MAX_VALUE;
    for (long o = startOffset; o < endOffset; o++) {
      int s = slot(o);
      if (states[s] == AVAILABLE && deadlines[s] > now) {
        next = Math.min(next, deadlines[s]);
      }
    }
    nextBackoffEnd = next;
    return true;
  }

  /**
   * The log start moved past records of the window (retention, DeleteRecords): they can never be
   * delivered, so the start offset moves to {@code logStartOffset}. Records owed to the dead-letter
   * topic below it are given up: their contents are gone.
   *
   * @return whether the start offset moved
   */
  public synchronized boolean moveStartTo(long logStartOffset) {
    if (logStartOffset <= startOffset) {
      return false;
    }
    deadLetters.headMap(logStartOffset).clear();
    for (long o = startOffset; o < Math.min(endOffset, logStartOffset); o++) {
      clear(slot(o));
    }
    startOffset = logStartOffset;
    endOffset = Math.max(endOffset, logStartOffset);
    return true;
  }

  /**
   * What the share coordinator keeps of this share-partition: the start offset and the window as
   * runs of one state and delivery count; and the records it writes as owed to the dead-letter
   * topic (once it is written, they may be).
   */
  public record Snapshot(
      long startOffset,
      List<WriteShareGroupStateRequestData.StateBatch> batches,
      List<Long> deadLetters) {}

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
      byte durable = durable(states[s], o);
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
    return new Snapshot(startOffset, batches, List.copyOf(deadLetters.keySet()));
  }

  /**
   * A write of the state that carried these records as owed to the dead-letter topic succeeded:
   * they may be written there now.
   */
  public synchronized void deadLettersDurable(List<Long> offsets) {
    for (long offset : offsets) {
      PendingLetter letter = deadLetters.get(offset);
      if (letter != null) {
        letter.durable = true;
      }
    }
  }

  /** Whether records are owed to the dead-letter topic and may be written now. */
  public synchronized boolean hasDeadLettersToWrite() {
    for (PendingLetter letter : deadLetters.values()) {
      if (letter.durable && !letter.writing) {
        return true;
      }
    }
    return false;
  }

  /**
   * The records owed to the dead-letter topic whose state saying so is durable and that no write is
   * under way for; each is marked as being written until {@link #deadLettered} or {@link
   * #deadLetterFailed}.
   */
  public synchronized List<DeadLetter> takeDeadLetters() {
    List<DeadLetter> due = new ArrayList<>();
    for (Map.Entry<Long, PendingLetter> e : deadLetters.entrySet()) {
      PendingLetter letter = e.getValue();
      if (letter.durable && !letter.writing) {
        letter.writing = true;
        long offset = e.getKey();
        due.add(
            new DeadLetter(offset, letter.reason, deliveries[slot(offset)], letter.maybeWritten));
      }
    }
    return due;
  }

  /**
   * The record is in the dead-letter topic (or no longer needs to be: the group's topic was unset):
   * it is archived.
   *
   * @return whether it was owed (false if it was given up meanwhile)
   */
  public synchronized boolean deadLettered(long offset) {
    if (deadLetters.remove(offset) == null) {
      return false;
    }
    states[slot(offset)] = ARCHIVED;
    advanceStart();
    return true;
  }

  /** Writing the record failed: it is tried again, after checking the topic for it first. */
  public synchronized void deadLetterFailed(long offset) {
    PendingLetter letter = deadLetters.get(offset);
    if (letter != null) {
      letter.writing = false;
      letter.maybeWritten = true;
    }
  }

  /** Records owed to the dead-letter topic (written or not). */
  public synchronized int deadLetterCount() {
    return deadLetters.size();
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
            case DURABLE_DEAD_LETTER_LIMIT, DURABLE_DEAD_LETTER_REJECTED -> DEAD_LETTER;
            default -> AVAILABLE;
          };
      short count = (short) Math.max(0, b.deliveryCount());
      for (long o = first; o <= last; o++) {
        int s = slot(o);
        states[s] = state;
        deliveries[s] = count;
        if (state == DEAD_LETTER) {
          // Owed, and maybe written before the crash or move: checked for before writing.
          PendingLetter letter =
              new PendingLetter(
                  b.deliveryState() == DURABLE_DEAD_LETTER_LIMIT
                      ? DeadLetterReason.DELIVERY_LIMIT
                      : DeadLetterReason.REJECTED);
          letter.durable = true;
          letter.maybeWritten = true;
          deadLetters.put(o, letter);
        }
      }
    }
    advanceStart();
  }

  private byte durable(byte state, long offset) {
    return switch (state) {
      case ACKNOWLEDGED -> DURABLE_ACKNOWLEDGED;
      case ARCHIVED -> DURABLE_ARCHIVED;
      case DEAD_LETTER ->
          deadLetters.get(offset).reason == DeadLetterReason.DELIVERY_LIMIT
              ? DURABLE_DEAD_LETTER_LIMIT
              : DURABLE_DEAD_LETTER_REJECTED;
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

  /**
   * An acquired record comes back: archived (or owed to the dead-letter topic) at the delivery
   * limit, else available again, after its redelivery backoff if the group has one.
   */
  private void release(int s, long offset, long now, ShareGroupConfig group) {
    if (deliveries[s] >= group.deliveryCountLimit(limits)) {
      archive(s, offset, DeadLetterReason.DELIVERY_LIMIT, group);
      return;
    }
    owners[s] = null;
    states[s] = AVAILABLE;
    long backoff = group.backoffMs(deliveries[s]);
    deadlines[s] = backoff > 0 ? now + backoff : 0;
    if (backoff > 0) {
      nextBackoffEnd = Math.min(nextBackoffEnd, deadlines[s]);
    }
    stats.redelivered();
  }

  /** Archived, or owed to the dead-letter topic first when the group has one. */
  private void archive(int s, long offset, DeadLetterReason reason, ShareGroupConfig group) {
    owners[s] = null;
    deadlines[s] = 0;
    stats.archived();
    if (group.deadLetterTopic() == null) {
      states[s] = ARCHIVED;
      return;
    }
    states[s] = DEAD_LETTER;
    deadLetters.put(offset, new PendingLetter(reason));
  }

  private void finish(int s, byte state) {
    owners[s] = null;
    deadlines[s] = 0;
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
