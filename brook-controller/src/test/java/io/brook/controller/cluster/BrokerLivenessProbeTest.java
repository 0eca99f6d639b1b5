package io.brook.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.testports.PortAllocator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The probe against real sockets on 127.0.0.1 (a listener closed stands for a dead broker) and a
 * virtual clock for the grace, so no test sleeps through it.
 */
class BrokerLivenessProbeTest {
  private static final long GRACE_MS = 2_000;
  private static final int SELF = 1;
  private static final int BROKER = 2;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final AtomicBoolean active = new AtomicBoolean(true);
  private final List<long[]> fences = new CopyOnWriteArrayList<>();
  private MetadataImage image = MetadataImage.EMPTY;
  private BrokerLivenessProbe probe;
  private ServerSocket listener;
  private Socket accepted;

  /**
   * Broker 2's port, outside the kernel's ephemeral range: its listener closes and binds again, and
   * meanwhile an ephemeral port could become the local end of a connection, the probe's own
   * included (connecting to an unbound ephemeral port can even connect a socket to itself).
   */
  private int port;

  @BeforeEach
  void setUp() {
    port = PortAllocator.shared().allocate();
    probe =
        new BrokerLivenessProbe(
            SELF,
            () -> image,
            active::get,
            (brokerId, epoch) -> {
              fences.add(new long[] {brokerId, epoch});
              return CompletableFuture.completedFuture(ApiError.NONE);
            },
            GRACE_MS,
            now::get);
  }

  @AfterEach
  void tearDown() throws IOException {
    probe.close();
    if (accepted != null) {
      accepted.close();
    }
    if (listener != null) {
      listener.close();
    }
  }

  @Test
  void aBrokerWhoseConnectionStaysLostForTheGraceIsFencedOnceWithTheEpochSeen() throws Exception {
    // Given a connection to broker 2, registered at epoch 10
    listen();
    register(BROKER, 10, port);
    awaitConnected();

    // When its process dies (the kernel closes its sockets)
    die();
    awaitLost();

    // Then it is fenced once the grace has passed, not before, and only once
    tick(GRACE_MS - 1);
    assertThat(fences).isEmpty();
    tick(1);
    tick(GRACE_MS);
    assertThat(fences).singleElement().satisfies(f -> assertThat(f).containsExactly(BROKER, 10));
  }

  @Test
  void aListenerBackWithinTheGraceIsNotFenced() throws Exception {
    // Given a connection to broker 2 that is lost
    listen();
    register(BROKER, 10, port);
    awaitConnected();
    die();
    awaitLost();

    // When the listener is back within the grace (or the broker closed an idle connection)
    tick(GRACE_MS / 2);
    listen();
    awaitConnected();

    // Then long after, nothing is fenced
    tick(GRACE_MS * 5);
    assertThat(fences).isEmpty();
  }

  @Test
  void aBrokerNeverReachedIsNotFenced() throws Exception {
    // Given broker 2 advertising a port nothing listens on
    register(BROKER, 10, port);

    // When the probe tries for far longer than the grace
    for (int i = 0; i < 20; i++) {
      tick(GRACE_MS);
    }

    // Then it leaves the broker to its session timeout
    assertThat(fences).isEmpty();
  }

  @Test
  void aBrokerThatReRegisteredAfterTheDropIsNotFenced() throws Exception {
    // Given a lost connection to broker 2 at epoch 10
    listen();
    register(BROKER, 10, port);
    awaitConnected();
    die();
    awaitLost();

    // When it registers again with a new epoch (a restarted process) before the grace ends
    tick(GRACE_MS / 2);
    register(BROKER, 20, port);

    // Then the new incarnation is not fenced for the old one's lost connection
    tick(GRACE_MS * 5);
    assertThat(fences).isEmpty();
  }

  @Test
  void aStandbySeesTheDropButOnlyFencesOnceActiveCountingFromTheDrop() throws Exception {
    // Given a standby controller holding a connection to broker 2
    active.set(false);
    listen();
    register(BROKER, 10, port);
    awaitConnected();

    // When the broker dies (say with the active controller, on the same node)
    die();
    awaitLost();
    tick(GRACE_MS * 2);

    // Then the standby fences nothing, and fences at once when it becomes active
    assertThat(fences).isEmpty();
    active.set(true);
    tick(0);
    assertThat(fences).singleElement().satisfies(f -> assertThat(f).containsExactly(BROKER, 10));
  }

  private void listen() throws IOException {
    listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
  }

  /** Closes the accepted connection and the listener, as the kernel does for a dead process. */
  private void die() throws IOException {
    accepted.close();
    accepted = null;
    listener.close();
  }

  private void register(int brokerId, long epoch, int port) {
    BrokerEndpoint endpoint = new BrokerEndpoint("PLAINTEXT", "127.0.0.1", port, "PLAINTEXT");
    image =
        image.apply(
            List.of(
                new RegisterBrokerRecord(
                    brokerId,
                    Uuid.randomUuid(),
                    epoch,
                    List.of(endpoint),
                    Optional.empty(),
                    false)),
            image.offset() + 1);
  }

  private void tick(long advanceMs) {
    now.addAndGet(advanceMs);
    probe.run();
  }

  /** Runs the probe (on real time, virtual time standing still) until it holds a connection. */
  private void awaitConnected() throws IOException {
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              probe.run();
              return probe.connected(BROKER);
            });
    listener.setSoTimeout(5_000);
    accepted = listener.accept();
  }

  private void awaitLost() {
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              probe.run();
              return probe.connectionLost(BROKER);
            });
  }
}
