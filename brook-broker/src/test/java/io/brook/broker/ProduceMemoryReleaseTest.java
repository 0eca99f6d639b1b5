package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.api.ProduceHandler;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An acks=all produce gives its request memory back once its records are in the log, before it
 * waits for the replicas: produces waiting for replication must not hold the request-memory budget
 * that the followers' fetches, which would complete them, need to be read at all.
 */
class ProduceMemoryReleaseTest {
  private static final int FOLLOWER = 2;
  private static final TopicPartition TP = new TopicPartition("replicated", 0);

  @TempDir Path dir;
  private BrokerFixture broker;

  @BeforeEach
  void start() throws Exception {
    // Given: partition 0 led here with a second replica, in sync, that has not fetched yet
    broker = new BrokerFixture(dir);
    broker.registerBroker(FOLLOWER);
    broker.quorum.createTopic(TP.topic(), Map.of(0, List.of(1, FOLLOWER)), Map.of());
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private static RequestContext context(AtomicInteger released) {
    return new RequestContext(
        new RequestHeader(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion(), "test", 1),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "test-connection",
        System.nanoTime(),
        released::incrementAndGet);
  }

  @Test
  void anAcksAllProduceReleasesItsRequestBytesBeforeWaitingForTheReplicas() throws Exception {
    // When
    AtomicInteger released = new AtomicInteger();
    ProduceRequestData produce = BrokerFixture.produceRequest(TP.topic(), 0, (short) -1, "v");
    produce.setTimeoutMs(600_000);
    CompletableFuture<ApiMessage> produced =
        new ProduceHandler(broker.replicaManager)
            .handle(context(released), produce)
            .toCompletableFuture();

    // Then: it waits for the follower, having given its bytes back
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.delayed.waiting(TP) == 1);
    assertThat(produced).isNotDone();
    assertThat(released).hasValue(1);
  }

  @Test
  void anAcksOneProduceKeepsItsBytesUntilItsAnswer() throws Exception {
    // When
    AtomicInteger released = new AtomicInteger();
    ApiMessage answer =
        new ProduceHandler(broker.replicaManager)
            .handle(context(released), BrokerFixture.produceRequest(TP.topic(), 0, (short) 1, "v"))
            .toCompletableFuture()
            .get();

    // Then: answered at once; the network layer releases the bytes with the answer
    assertThat(answer).isNotNull();
    assertThat(released).hasValue(0);
  }
}
