package io.brook.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ConfigValidator;
import io.brook.controller.state.ControllerConfig;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.quorum.QuorumState;
import io.brook.testports.PortAllocator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-853 on real Ratis servers over loopback: a single voter grows into three through nodes that
 * start with bootstrap servers, loses its first voter and shrinks back, and refuses the changes
 * Kafka refuses.
 */
class DynamicQuorumTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final Map<Integer, RaftMetadataQuorum> nodes = new LinkedHashMap<>();
  private final Map<Integer, InetSocketAddress> endpoints = new LinkedHashMap<>();
  private final Map<Integer, Uuid> directories = new LinkedHashMap<>();

  @AfterEach
  void stop() {
    nodes.values().forEach(RaftMetadataQuorum::close);
  }

  @Test
  void aSingleVoterGrowsToThreeAndShrinksBackAfterLosingItsFirstVoter() throws Exception {
    // Given a single voter holding a topic, and two nodes started with bootstrap servers
    startSingleVoter(1);
    createTopic(nodes.get(1), "before");
    startObserver(2);
    startObserver(3);

    // Then they follow the log as observers before they vote
    await().atMost(WAIT).until(() -> nodes.get(2).image().topicNames().contains("before"));
    await().atMost(WAIT).until(() -> observerIds(nodes.get(1)).containsAll(List.of(2, 3)));
    assertThat(voterIds(nodes.get(1))).containsExactly(1);

    // When both are added as voters
    assertThat(add(nodes.get(1), 2)).isEqualTo(Errors.NONE);
    assertThat(add(nodes.get(1), 3)).isEqualTo(Errors.NONE);

    // Then the leader describes three voters with their directory ids, and no observer
    QuorumState three = nodes.get(1).quorumState().orElseThrow();
    assertThat(three.voters())
        .extracting(QuorumState.Replica::replicaId, QuorumState.Replica::directoryId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, directories.get(1)),
            org.assertj.core.groups.Tuple.tuple(2, directories.get(2)),
            org.assertj.core.groups.Tuple.tuple(3, directories.get(3)));
    assertThat(three.observers()).isEmpty();
    assertThat(three.voterEndpoints()).containsEntry(2, endpoints.get(2));

    // When the first voter stops for good
    nodes.remove(1).close();

    // Then the other two elect a leader that accepts operations, nothing committed lost
    RaftMetadataQuorum leader = awaitLeader();
    createTopic(leader, "after");
    assertThat(leader.image().topicNames()).contains("before", "after");

    // And removing the dead voter leaves two
    assertThat(leader.removeVoter(1, directories.get(1)).get().error()).isEqualTo(Errors.NONE);
    await().atMost(WAIT).until(() -> voterIds(awaitLeader()).equals(List.of(2, 3)));
    createTopic(awaitLeader(), "two-voters");
  }

  @Test
  void refusesTheChangesKafkaRefuses() throws Exception {
    // Given a single voter and an observer
    startSingleVoter(1);
    startObserver(2);
    RaftMetadataQuorum leader = nodes.get(1);
    await().atMost(WAIT).until(() -> observerIds(leader).contains(2));

    // Then the last voter cannot be removed (once the observer's addition is committed: until
    // then every change is REQUEST_TIMED_OUT, as in Kafka)
    assertThat(settled(() -> leader.removeVoter(1, directories.get(1))))
        .isEqualTo(Errors.VOTER_NOT_FOUND);
    // Nor a voter by an unknown directory id
    assertThat(leader.removeVoter(1, Uuid.randomUuid()).get().error())
        .isEqualTo(Errors.VOTER_NOT_FOUND);
    // A voter's id cannot be added again
    assertThat(leader.addVoter(1, Uuid.randomUuid(), endpoints.get(1), WAIT).get().error())
        .isEqualTo(Errors.DUPLICATE_VOTER);
    // A node that is not an observer under that directory id is not added
    assertThat(leader.addVoter(2, Uuid.randomUuid(), endpoints.get(2), WAIT).get().error())
        .isEqualTo(Errors.REQUEST_TIMED_OUT);
    assertThat(leader.addVoter(7, Uuid.randomUuid(), endpoints.get(2), WAIT).get().error())
        .isEqualTo(Errors.REQUEST_TIMED_OUT);
    // A node that does not lead answers NOT_LEADER_OR_FOLLOWER
    assertThat(nodes.get(2).removeVoter(1, directories.get(1)).get().error())
        .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThat(voterIds(leader)).containsExactly(1);

    // And a voter's new endpoint is recorded; an unknown voter's is refused
    InetSocketAddress moved =
        InetSocketAddress.createUnresolved("localhost", endpoints.get(1).getPort());
    assertThat(leader.updateVoter(1, directories.get(1), moved).get().error())
        .isEqualTo(Errors.NONE);
    assertThat(leader.quorumState().orElseThrow().voterEndpoints()).isNotEmpty();
    assertThat(leader.updateVoter(5, Uuid.randomUuid(), moved).get().error())
        .isEqualTo(Errors.VOTER_NOT_FOUND);
  }

  @Test
  void storageOfTheGroupIdDerivedFromTheVotersIsMovedToTheFixedOne() throws Exception {
    // Given a single voter's storage as an earlier version laid it out: group id from the voter
    // ids, peer id from the node id alone, no recorded peer id
    startSingleVoter(1, Uuid.ZERO_UUID);
    createTopic(nodes.get(1), "kept");
    nodes.remove(1).close();
    Path storage = dir.resolve("node-1");
    Path fixed = storage.resolve(RatisConfig.GROUP_ID.getUuid().toString());
    Path legacy = storage.resolve(RatisConfig.legacyGroupId(List.of(1)).getUuid().toString());
    Files.move(fixed, legacy);
    Files.delete(storage.resolve(RatisStorage.PEER_ID_FILE));

    // When it starts again
    RaftMetadataQuorum restarted =
        RaftMetadataQuorum.start(settings(1, Map.of(1, endpoints.get(1)), List.of()));
    nodes.put(1, restarted);

    // Then it uses the moved group, with its topic, under its old peer id
    assertThat(Files.isDirectory(fixed)).isTrue();
    assertThat(Files.exists(legacy)).isFalse();
    await().atMost(WAIT).until(restarted::isActiveController);
    assertThat(restarted.image().topicNames()).contains("kept");
  }

  private Errors add(RaftMetadataQuorum leader, int id) throws Exception {
    return settled(
        () -> leader.addVoter(id, directories.get(id), endpoints.get(id), Duration.ofSeconds(10)));
  }

  /** The answer once no earlier change is pending (REQUEST_TIMED_OUT until then). */
  private static Errors settled(
      java.util.function.Supplier<java.util.concurrent.CompletableFuture<ApiError>> change)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      ApiError result = change.get().get();
      if (result.error() != Errors.REQUEST_TIMED_OUT || System.nanoTime() > deadline) {
        return result.error();
      }
      Thread.sleep(100);
    }
  }

  private void startSingleVoter(int id) throws IOException {
    startSingleVoter(id, Uuid.randomUuid());
  }

  private void startSingleVoter(int id, Uuid directoryId) throws IOException {
    InetSocketAddress endpoint =
        InetSocketAddress.createUnresolved("127.0.0.1", PortAllocator.shared().allocate());
    endpoints.put(id, endpoint);
    directories.put(id, directoryId);
    nodes.put(id, RaftMetadataQuorum.start(settings(id, Map.of(id, endpoint), List.of())));
    await().atMost(WAIT).until(nodes.get(id)::isActiveController);
  }

  private void startObserver(int id) throws IOException {
    InetSocketAddress endpoint =
        InetSocketAddress.createUnresolved("127.0.0.1", PortAllocator.shared().allocate());
    endpoints.put(id, endpoint);
    directories.put(id, Uuid.randomUuid());
    List<InetSocketAddress> bootstrap =
        List.of(InetSocketAddress.createUnresolved("127.0.0.1", endpoints.get(1).getPort()));
    nodes.put(id, RaftMetadataQuorum.start(settings(id, Map.of(), bootstrap)));
  }

  private QuorumSettings settings(
      int id, Map<Integer, InetSocketAddress> voters, List<InetSocketAddress> bootstrap) {
    return new QuorumSettings(
            id,
            voters,
            dir.resolve("node-" + id),
            Duration.ofMillis(1000),
            Duration.ofSeconds(5),
            10_000,
            QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES)
        .withDynamicQuorum(directories.get(id), bootstrap, endpoints.get(id));
  }

  private static List<Integer> voterIds(RaftMetadataQuorum leader) {
    return leader.quorumState().map(DynamicQuorumTest::voterIds).orElse(List.of());
  }

  private static List<Integer> voterIds(QuorumState state) {
    return state.voters().stream().map(QuorumState.Replica::replicaId).toList();
  }

  private static List<Integer> observerIds(RaftMetadataQuorum leader) {
    return leader
        .quorumState()
        .map(s -> s.observers().stream().map(QuorumState.Replica::replicaId).toList())
        .orElse(List.of());
  }

  private RaftMetadataQuorum awaitLeader() {
    return await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                nodes.values().stream()
                    .filter(RaftMetadataQuorum::isActiveController)
                    .findFirst()
                    .orElse(null),
            n -> n != null);
  }

  private static void createTopic(RaftMetadataQuorum quorum, String name) {
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        if (quorum.image().brokers().isEmpty()) {
          quorum.submit(
              image ->
                  controller.registerBroker(1, Uuid.randomUuid(), List.of(), Optional.empty()));
        }
        assertThat(
                quorum
                    .submit(
                        image ->
                            controller.createTopic(
                                name,
                                1,
                                (short) 1,
                                Map.of(),
                                Map.of(),
                                false,
                                ConfigValidator.NONE))
                    .error())
            .isEqualTo(ApiError.NONE);
        return;
      } catch (MetadataException e) {
        if (e.error().error() != Errors.NOT_CONTROLLER || System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }
}
