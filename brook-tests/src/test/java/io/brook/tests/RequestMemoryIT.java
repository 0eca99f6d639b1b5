package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request-memory budget ({@code queued.max.request.bytes}, by default a quarter of the JVM's
 * memory) on a broker process with a 256 MiB heap: many connections send frames of tens of MiB,
 * quickly or slowly, far more than the heap (and direct memory) can hold at once, while a
 * kafka-clients producer and consumer on other connections keep working. Without the budget the
 * frames accumulate side by side until direct memory runs out.
 */
@Timeout(300)
class RequestMemoryIT {
  private static final int MIB = 1024 * 1024;
  private static final int FAST_SENDERS = 5;
  private static final int SLOW_SENDERS = 4;

  @TempDir Path tmp;

  @Test
  void largeFramesOnManyConnectionsNeverExhaustASmallHeapAndClientsKeepWorking() throws Exception {
    // Given: a broker with a 256 MiB heap and Kafka's default socket.request.max.bytes (100 MiB)
    int port = BrookProcess.freePort();
    Path config = BrookProcess.writeConfig(tmp, tmp.resolve("data"), port, BrookProcess.freePort());
    try (BrookProcess broker =
        BrookProcess.start(
            config,
            Path.of("target", "RequestMemoryIT-broker.log"),
            "-Xmx256m",
            "-XX:+ExitOnOutOfMemoryError")) {
      broker.awaitReady();
      String bootstrap = "127.0.0.1:" + port;
      BackgroundTraffic traffic = BackgroundTraffic.start(bootstrap, "steady");
      traffic.assertStillFlowing(20);

      // When: nine connections send frames of 8 to 56 MiB (under the 64 MiB budget), five as fast
      // as loopback allows and four slowly, reconnecting after each refusal
      List<FrameSender> senders = new ArrayList<>();
      for (int i = 0; i < FAST_SENDERS + SLOW_SENDERS; i++) {
        senders.add(new FrameSender(port, i, i >= FAST_SENDERS));
      }
      senders.forEach(FrameSender::start);
      try {
        // Then: the producer and consumer keep going throughout, until more than the whole heap
        // has been sent in large frames
        while (sum(senders, s -> s.bytesSent.get()) < 384L * MIB
            || sum(senders, s -> s.framesSent.get()) < 8) {
          traffic.assertStillFlowing(20);
        }
        assertThat(broker.log())
            .doesNotContain("OutOfMemoryError")
            .doesNotContain("OutOfDirectMemoryError")
            .doesNotContain("Direct buffer memory");
        // And a frame larger than the whole budget is refused at once
        assertRefused(port, 80 * MIB);
      } finally {
        senders.forEach(FrameSender::stop);
      }
      assertThat(senders.stream().flatMap(s -> s.failures.stream()).toList()).isEmpty();
      traffic.assertStillFlowing(20);
      traffic.close();

      assertThat(broker.handle().isAlive()).as("broker alive").isTrue();
      assertThat(broker.log())
          .doesNotContain("OutOfMemoryError")
          .contains("reason=too-large queued.max.request.bytes=");
    }
  }

  private static long sum(List<FrameSender> senders, ToLongFunction<FrameSender> count) {
    return senders.stream().mapToLong(count).sum();
  }

  private static void assertRefused(int port, int length) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(ByteBuffer.allocate(4).putInt(length).array());
      assertThat(readToEnd(socket.getInputStream())).as("closed by the broker").isTrue();
    }
  }

  /** Reads until the broker closes; true if it did (end of stream or reset). */
  private static boolean readToEnd(InputStream in) {
    byte[] sink = new byte[4096];
    try {
      while (in.read(sink) >= 0) {
        // a garbage frame gets no response; anything read is ignored
      }
      return true;
    } catch (IOException e) {
      return !(e instanceof java.net.SocketTimeoutException);
    }
  }

  /**
   * One connection after another, each sending one garbage frame of a random size (which the broker
   * reads whole, then refuses as malformed and closes).
   */
  private static final class FrameSender {
    private final int port;
    private final boolean slow;
    private final Random random;
    private final Thread thread;
    private final byte[] chunk = new byte[64 * 1024];
    private final AtomicLong framesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;
    private volatile Socket current;

    FrameSender(int port, int index, boolean slow) {
      this.port = port;
      this.slow = slow;
      this.random = new Random(index);
      random.nextBytes(chunk);
      this.thread = new Thread(this::run, (slow ? "slow" : "fast") + "-sender-" + index);
    }

    void start() {
      thread.start();
    }

    void stop() {
      running = false;
      Socket socket = current;
      if (socket != null) {
        try {
          socket.close(); // unblocks a write the broker is not reading
        } catch (IOException e) {
          failures.add(e);
        }
      }
      try {
        thread.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        failures.add(new AssertionError(thread.getName() + " did not stop"));
      }
    }

    private void run() {
      while (running) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
          current = socket;
          socket.setSoTimeout(60_000);
          sendOneFrame(socket.getOutputStream(), (8 + random.nextInt(49)) * MIB);
          if (running) {
            readToEnd(socket.getInputStream());
          }
        } catch (IOException e) {
          // The broker closed the connection, or stop() did: try again while running.
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (RuntimeException e) {
          failures.add(e);
          return;
        }
      }
    }

    private void sendOneFrame(OutputStream out, int length)
        throws IOException, InterruptedException {
      out.write(ByteBuffer.allocate(4).putInt(length).array());
      int sent = 0;
      while (sent < length && running) {
        int n = Math.min(chunk.length, length - sent);
        out.write(chunk, 0, n);
        sent += n;
        bytesSent.addAndGet(n);
        if (slow) {
          Thread.sleep(3); // about 20 MB/s
        }
      }
      out.flush();
      if (sent == length) {
        framesSent.incrementAndGet();
      }
    }
  }
}
