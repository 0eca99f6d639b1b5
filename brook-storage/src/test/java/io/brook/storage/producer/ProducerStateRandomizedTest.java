package io.brook.storage.producer;

import static io.brook.storage.producer.TestBatches.idempotent;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.StorageException;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drives the manager with random producer traffic (in-sequence batches, retries, gaps, stale
 * retries, fenced and bumped epochs, sequences near the wrap), snapshots, reloads and truncations,
 * and after every step compares the outcome and the state with a deliberately simple model. A
 * failing seed is printed in the assertion message; pin it in {@link #pinnedSeeds}.
 */
class ProducerStateRandomizedTest {
  private static final int STEPS = 1_500;
  private static final long[] PRODUCER_IDS = {11L, 22L, 33L, 44L};

  @TempDir Path tempDir;

  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 3L, 42L, 7_777L, 123_456_789L, -5_000_000_000L})
  void pinnedSeeds(long seed) throws IOException {
    run(seed);
  }

  @Test
  void freshSeed() throws IOException {
    run(new Random().nextLong());
  }

  // ---------------------------------------------------------------------------------------------
  // The model: per producer, its epoch and last five batches; nothing else.

  private enum Kind {
    APPENDED,
    DUPLICATE,
    OUT_OF_ORDER,
    FENCED
  }

  private record Outcome(Kind kind, BatchMetadata duplicate) {}

  private record ModelProducer(short epoch, List<BatchMetadata> batches) {}

  private static final class Model {
    final Map<Long, ModelProducer> producers = new HashMap<>();

    Outcome expect(long producerId, short epoch, int firstSeq, int lastSeq) {
      ModelProducer p = producers.get(producerId);
      if (p == null) {
        return new Outcome(Kind.APPENDED, null);
      }
      if (epoch < p.epoch()) {
        return new Outcome(Kind.FENCED, null);
      }
      if (epoch > p.epoch()) {
        return new Outcome(firstSeq == 0 ? Kind.APPENDED : Kind.OUT_OF_ORDER, null);
      }
      for (BatchMetadata b : p.batches()) {
        if (b.firstSeq() == firstSeq && b.lastSeq() == lastSeq) {
          return new Outcome(Kind.DUPLICATE, b);
        }
      }
      long expected =
          p.batches().isEmpty() ? 0 : (p.batches().get(p.batches().size() - 1).lastSeq() + 1L);
      if (expected > Integer.MAX_VALUE) {
        expected = 0;
      }
      return new Outcome(firstSeq == expected ? Kind.APPENDED : Kind.OUT_OF_ORDER, null);
    }

    void record(long producerId, short epoch, BatchMetadata batch) {
      ModelProducer p = producers.get(producerId);
      List<BatchMetadata> batches =
          p == null || p.epoch() != epoch ? new ArrayList<>() : new ArrayList<>(p.batches());
      batches.add(batch);
      if (batches.size() > 5) {
        batches.remove(0);
      }
      producers.put(producerId, new ModelProducer(epoch, batches));
    }

    static Model replay(List<MutableRecordBatch> log) {
      Model model = new Model();
      for (MutableRecordBatch b : log) {
        model.record(b.producerId(), b.producerEpoch(), metadataOf(b));
      }
      return model;
    }
  }

  private static BatchMetadata metadataOf(MutableRecordBatch b) {
    return new BatchMetadata(
        b.baseSequence(), b.lastSequence(), b.baseOffset(), b.lastOffset(), b.maxTimestamp());
  }

  /** The number of records of a batch, whose sequence range may wrap. */
  private static int countOf(BatchMetadata batch) {
    long span = (long) batch.lastSeq() - batch.firstSeq();
    return (int) (span < 0 ? span + Integer.MAX_VALUE + 1 : span) + 1;
  }

  /** The last sequence of a batch of {@code count} records starting at {@code firstSeq}. */
  private static int lastSeqOf(int firstSeq, int count) {
    long last = (long) firstSeq + count - 1;
    return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
  }

  // ---------------------------------------------------------------------------------------------

  private void run(long seed) throws IOException {
    Path dir = Files.createDirectory(tempDir.resolve("seed" + seed));
    Random random = new Random(seed);
    ManualTime time = new ManualTime();
    ProducerStateManager state = new ProducerStateManager(dir, time, Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    Model model = new Model();
    Map<Kind, Integer> outcomes = new EnumMap<>(Kind.class);

    for (int step = 0; step < STEPS; step++) {
      String where = "seed=" + seed + " step=" + step;
      time.advance(1 + random.nextInt(5));
      int action = random.nextInt(100);
      if (action < 5) {
        state.takeSnapshot();
        log.reload();
        where += " reload";
      } else if (action < 8 && !log.batches.isEmpty()) {
        int keep = random.nextInt(log.batches.size() + 1);
        log.truncateToBatch(keep);
        model = Model.replay(log.batches);
        where += " truncate to batch " + keep;
      } else if (action < 12) {
        state.takeSnapshot();
        where += " snapshot";
      } else {
        Kind outcome = produce(random, log, model, time.milliseconds(), where);
        outcomes.merge(outcome, 1, Integer::sum);
        where += " produce -> " + outcome;
      }
      assertMatches(state, model, where);
      assertThat(state.mapEndOffset()).as(where).isEqualTo(log.logEndOffset);
    }
    assertThat(outcomes)
        .as("seed=" + seed + " exercises every outcome")
        .containsOnlyKeys(Kind.values());
  }

  /** One produce request with a randomly chosen kind of batch; returns its outcome. */
  private static Kind produce(Random random, FakeLog log, Model model, long nowMs, String where) {
    long producerId = PRODUCER_IDS[random.nextInt(PRODUCER_IDS.length)];
    ModelProducer p = model.producers.get(producerId);
    int count = 1 + random.nextInt(3);
    short epoch;
    int firstSeq;
    int choice = random.nextInt(100);
    if (p == null) {
      epoch = (short) random.nextInt(3);
      firstSeq =
          random.nextBoolean() ? Integer.MAX_VALUE - random.nextInt(4) : random.nextInt(1_000);
    } else {
      int next =
          p.batches().isEmpty()
              ? 0
              : lastSeqOf(p.batches().get(p.batches().size() - 1).lastSeq(), 2);
      epoch = p.epoch();
      firstSeq = next;
      if (choice < 50) {
        // in sequence
      } else if (choice < 65 && !p.batches().isEmpty()) {
        BatchMetadata retried = p.batches().get(random.nextInt(p.batches().size()));
        firstSeq = retried.firstSeq();
        count =
            (int)
                    (((long) retried.lastSeq() - retried.firstSeq() + Integer.MAX_VALUE + 1)
                        % (Integer.MAX_VALUE + 1L))
                + 1;
      } else if (choice < 72) {
        firstSeq = lastSeqOf(next, 2 + random.nextInt(3));
      } else if (choice < 78 && p.epoch() > 0) {
        epoch = (short) (p.epoch() - 1);
      } else if (choice < 86) {
        epoch = (short) (p.epoch() + 1);
        firstSeq = 0;
      } else if (choice < 90) {
        epoch = (short) (p.epoch() + 1);
        firstSeq = 1 + random.nextInt(10);
      } else if (!p.batches().isEmpty() && p.batches().get(0).firstSeq() > 3) {
        firstSeq = random.nextInt(p.batches().get(0).firstSeq() - 3);
      }
    }
    MutableRecordBatch batch = idempotent(producerId, epoch, firstSeq, count, nowMs);
    String what =
        where
            + " produce pid="
            + producerId
            + " epoch="
            + epoch
            + " seq="
            + firstSeq
            + " count="
            + count;
    Outcome expected = model.expect(producerId, epoch, firstSeq, batch.lastSequence());
    Outcome actual;
    try {
      Optional<BatchMetadata> duplicate = log.appendFromClient(batch);
      actual =
          duplicate
              .map(d -> new Outcome(Kind.DUPLICATE, d))
              .orElse(new Outcome(Kind.APPENDED, null));
    } catch (StorageException e) {
      actual =
          switch (e.error()) {
            case OUT_OF_ORDER_SEQUENCE_NUMBER -> new Outcome(Kind.OUT_OF_ORDER, null);
            case INVALID_PRODUCER_EPOCH -> new Outcome(Kind.FENCED, null);
            default -> throw e;
          };
    }
    assertThat(actual).as(what).isEqualTo(expected);
    if (actual.kind() == Kind.APPENDED) {
      model.record(producerId, epoch, metadataOf(batch));
    }
    return actual.kind();
  }

  private static void assertMatches(ProducerStateManager state, Model model, String where) {
    Map<Long, ProducerStateEntry> actual = state.activeProducers();
    assertThat(actual.keySet()).as(where).isEqualTo(model.producers.keySet());
    model.producers.forEach(
        (producerId, expected) -> {
          ProducerStateEntry entry = actual.get(producerId);
          assertThat(entry.producerEpoch())
              .as(where + " pid=" + producerId)
              .isEqualTo(expected.epoch());
          assertThat(entry.batches())
              .as(where + " pid=" + producerId)
              .isEqualTo(expected.batches());
        });
  }
}
