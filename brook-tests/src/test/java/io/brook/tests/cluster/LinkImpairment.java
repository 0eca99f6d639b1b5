package io.brook.tests.cluster;

/**
 * What a degraded link does to a node's packets, both ways: each waits {@code delayMillis} plus a
 * random share of {@code jitterMillis} (packets overtake each other when the jitter exceeds the gap
 * between them), {@code dropPercent} of them are lost, and {@code duplicatePercent} of what the
 * node sends arrives twice. The effects of tc's netem, which this machine's kernel lacks.
 */
public record LinkImpairment(
    int delayMillis, int jitterMillis, int dropPercent, int duplicatePercent) {
  public LinkImpairment {
    if (delayMillis < 0 || jitterMillis < 0) {
      throw new IllegalArgumentException("delay and jitter must not be negative");
    }
    if (dropPercent < 0 || dropPercent > 100 || duplicatePercent < 0 || duplicatePercent > 100) {
      throw new IllegalArgumentException("percentages must be within 0-100");
    }
  }

  /** Whether it changes anything at all. */
  public boolean isNone() {
    return delayMillis == 0 && jitterMillis == 0 && dropPercent == 0 && duplicatePercent == 0;
  }

  @Override
  public String toString() {
    return "delay "
        + delayMillis
        + "+0-"
        + jitterMillis
        + " ms, drop "
        + dropPercent
        + "%, duplicate "
        + duplicatePercent
        + "%";
  }

  /**
   * What an impairment did while it was on: packets that went through the node's queue, those it
   * dropped, those released after one that arrived later, and those sent twice.
   */
  public record Effect(long queued, long dropped, long reordered, long duplicated) {
    /** What a link that was not impaired saw done to it. */
    public static final Effect NONE = new Effect(0, 0, 0, 0);

    @Override
    public String toString() {
      return queued
          + " packets queued, "
          + dropped
          + " dropped, "
          + reordered
          + " reordered, "
          + duplicated
          + " duplicated";
    }
  }
}
