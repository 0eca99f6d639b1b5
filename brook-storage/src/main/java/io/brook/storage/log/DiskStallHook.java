package io.brook.storage.log;

import org.apache.kafka.common.TopicPartition;

/**
 * A test seam on the append path's blocking disk steps: a test installs a hook that waits on a
 * latch to stand for a slow disk, and checks that nothing but the thread doing that step waits with
 * it (above all, no Netty event loop). Unset in production, where the check is one volatile read
 * per roll or inline flush.
 */
public final class DiskStallHook {
  /** The blocking steps an append can take. */
  public enum Step {
    /** Starting a new segment: index trims, a producer snapshot, new files. */
    ROLL,
    /** The fsync {@code flush.messages} asks for inside an append. */
    FLUSH_MESSAGES
  }

  /** Runs on the thread about to take {@code step} for {@code topicPartition}. */
  @FunctionalInterface
  public interface Hook {
    void before(TopicPartition topicPartition, Step step);
  }

  private static volatile Hook hook;

  private DiskStallHook() {}

  /** Installs {@code value} for this JVM (tests only); {@code null} removes it. */
  public static void install(Hook value) {
    hook = value;
  }

  static void before(TopicPartition topicPartition, Step step) {
    Hook current = hook;
    if (current != null) {
      current.before(topicPartition, step);
    }
  }
}
