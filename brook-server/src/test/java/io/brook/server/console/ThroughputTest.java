package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The throughput ring: rates from counter deltas, and a fixed size however long it samples. */
class ThroughputTest {
  @Test
  void ratesAreDeltasPerSecondAndTheRingKeepsTheLastFifteenMinutes() {
    AtomicLong clock = new AtomicLong(1_000_000);
    AtomicLong bytesIn = new AtomicLong();
    AtomicLong bytesOut = new AtomicLong();
    AtomicLong records = new AtomicLong();
    Throughput t = new Throughput(bytesIn::get, bytesOut::get, records::get, clock::get);
    t.sample();
    assertThat(t.samples()).isEmpty();
    assertThat(t.latest()).isNull();
    clock.addAndGet(5_000);
    bytesIn.addAndGet(50_000);
    bytesOut.addAndGet(10_000);
    records.addAndGet(500);
    t.sample();
    assertThat(t.latest()).isEqualTo(new Throughput.Sample(1_005_000, 10_000, 2_000, 100));
    for (int i = 0; i < 1_000; i++) {
      clock.addAndGet(5_000);
      bytesIn.addAndGet(i);
      t.sample();
    }
    assertThat(t.samples()).hasSize(Throughput.capacity());
    assertThat(Throughput.capacity()).isEqualTo(180);
    assertThat(t.samples().get(t.samples().size() - 1).timeMs()).isEqualTo(clock.get());
    assertThat(t.samples().get(0).timeMs())
        .isEqualTo(clock.get() - (Throughput.capacity() - 1) * 5_000L);
    assertThat(t.latest().bytesIn()).isEqualTo(999 / 5.0);
  }
}
