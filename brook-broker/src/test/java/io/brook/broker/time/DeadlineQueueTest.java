package io.brook.broker.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The timer's deadline queue on its own: order, removal of any entry, memory after a burst. */
class DeadlineQueueTest {
  private static final class Named extends DeadlineQueue.Entry {
    final String name;

    Named(String name) {
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private final DeadlineQueue<Named> queue = new DeadlineQueue<>();

  private List<String> drain() {
    List<String> out = new ArrayList<>();
    for (Named next = queue.poll(); next != null; next = queue.poll()) {
      out.add(next.name);
    }
    return out;
  }

  @Test
  void entriesComeOutByDeadlineThenInTheOrderTheyWereAdded() {
    // Given
    queue.add(new Named("late"), 30);
    queue.add(new Named("first"), 10);
    queue.add(new Named("middle"), 20);
    queue.add(new Named("second"), 10);
    queue.add(new Named("third"), 10);

    // When / Then
    assertThat(queue.peek().name).isEqualTo("first");
    assertThat(drain()).containsExactly("first", "second", "third", "middle", "late");
    assertThat(queue.poll()).isNull();
  }

  @Test
  void deadlinesAreComparedByTheirDifferenceSoTheClockMayWrap() {
    // Given: System.nanoTime() may be near the end of the long range and wrap past it
    queue.add(new Named("afterTheWrap"), Long.MAX_VALUE + 10);
    queue.add(new Named("beforeTheWrap"), Long.MAX_VALUE - 10);

    // When / Then
    assertThat(drain()).containsExactly("beforeTheWrap", "afterTheWrap");
  }

  @Test
  void aRemovedEntryIsGoneAndRemovingItAgainOrAPolledOneSaysSo() {
    // Given
    Named a = new Named("a");
    Named b = new Named("b");
    Named c = new Named("c");
    queue.add(a, 1);
    queue.add(b, 2);
    queue.add(c, 3);

    // When
    boolean removed = queue.remove(b);
    Named polled = queue.poll();

    // Then
    assertThat(removed).isTrue();
    assertThat(b.queued()).isFalse();
    assertThat(queue.remove(b)).isFalse();
    assertThat(polled).isSameAs(a);
    assertThat(queue.remove(a)).isFalse();
    assertThat(queue.size()).isEqualTo(1);
    assertThat(drain()).containsExactly("c");

    // And an entry out of the queue may be added again
    queue.add(b, 5);
    assertThat(drain()).containsExactly("b");
  }

  @Test
  void randomAddsRemovesAndPollsAgreeWithASortedSet() {
    // Given: a reference ordering of the same entries, by deadline then by when they were added
    Random random = new Random(42);
    List<long[]> keys = new ArrayList<>(); // per entry: deadline, order added
    TreeSet<Integer> reference =
        new TreeSet<>(
            Comparator.<Integer>comparingLong(i -> keys.get(i)[0])
                .thenComparingLong(i -> keys.get(i)[1]));
    List<Named> entries = new ArrayList<>();
    long order = 0;

    // When: many operations in a random mix
    for (int step = 0; step < 50_000; step++) {
      int op = random.nextInt(10);
      if (op < 5 || reference.isEmpty()) {
        int id = entries.size();
        Named entry = new Named(Integer.toString(id));
        long due = random.nextInt(1_000); // many ties
        entries.add(entry);
        keys.add(new long[] {due, order++});
        queue.add(entry, due);
        reference.add(id);
      } else if (op < 8) {
        int id = reference.stream().skip(random.nextInt(reference.size())).findFirst().get();
        assertThat(queue.remove(entries.get(id))).isTrue();
        reference.remove(id);
      } else {
        int expected = reference.pollFirst();
        assertThat(queue.poll()).isSameAs(entries.get(expected));
      }
      assertThat(queue.size()).isEqualTo(reference.size());
    }

    // Then: what is left comes out in the reference's order
    List<String> expected = reference.stream().map(i -> entries.get(i).name).toList();
    assertThat(drain()).isEqualTo(expected);
  }

  @Test
  void theArrayShrinksBackAfterABurst() {
    // Given: a burst of entries, all removed again (cancelled timers)
    List<Named> burst = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      Named entry = new Named("burst-" + i);
      burst.add(entry);
      queue.add(entry, i);
    }
    assertThat(queue.capacity()).isGreaterThanOrEqualTo(100_000);

    // When
    burst.forEach(queue::remove);

    // Then
    assertThat(queue.size()).isZero();
    assertThat(queue.capacity()).isEqualTo(DeadlineQueue.INITIAL_CAPACITY);
  }

  @Test
  void clearEmptiesTheQueueAndItsEntriesCanBeAddedAgain() {
    // Given
    Named a = new Named("a");
    queue.add(a, 1);
    queue.add(new Named("b"), 2);

    // When
    queue.clear();

    // Then
    assertThat(queue.size()).isZero();
    assertThat(a.queued()).isFalse();
    queue.add(a, 3);
    assertThat(drain()).containsExactly("a");
  }
}
