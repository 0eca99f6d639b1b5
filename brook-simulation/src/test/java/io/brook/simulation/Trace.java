package io.brook.simulation;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What happened in a run, as a hash of every event (simulated time and description) plus the last
 * events in full for a failure report. Two runs of one seed must give the same hash.
 */
final class Trace {
  private static final int KEPT = Integer.getInteger("brook.sim.traceKept", 60);
  private static final long FNV_PRIME = 0x100000001b3L;

  private final Deque<String> recent = new ArrayDeque<>();
  private long hash = 0xcbf29ce484222325L;
  private long events;

  void record(long timeMs, String event) {
    String line = timeMs + " " + event;
    for (int i = 0; i < line.length(); i++) {
      hash = (hash ^ line.charAt(i)) * FNV_PRIME;
    }
    hash = (hash ^ '\n') * FNV_PRIME;
    events++;
    recent.addLast(line);
    if (recent.size() > KEPT) {
      recent.removeFirst();
    }
  }

  long hash() {
    return hash;
  }

  long events() {
    return events;
  }

  /** The last events, oldest first, one per line. */
  String tail() {
    return String.join("\n", recent);
  }
}
