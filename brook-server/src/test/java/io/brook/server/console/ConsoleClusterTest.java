package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.InProcessApis;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.RequestContext;
import io.brook.server.http.Forwarder;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * The console's cluster-wide reads: a fan-out keeps every broker's answer or the reason it has none
 * (a failure, or no answer in time) without failing the page; merged group listings keep this
 * broker's groups as its handler listed them for the user and other brokers' only where
 * FindCoordinator as the user allows them, naming the brokers that gave no answer; a request about
 * one group goes to its coordinator only after this broker's handler authorized it for the user.
 */
class ConsoleClusterTest {
  private static final int THIS_NODE = 1;
  private static final InProcessApis.Caller CALLER =
      new InProcessApis.Caller(
          new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"),
          InetAddress.getLoopbackAddress(),
          "console-test");

  @Test
  void aFanOutKeepsEachBrokersAnswerOrWhyItGaveNone() {
    CompletableFuture<String> silent = new CompletableFuture<>();
    List<ConsoleCluster.Reply<String>> replies =
        ConsoleCluster.fanOut(
                List.of(1, 2, 3, 4),
                node ->
                    switch (node) {
                      case 1 -> CompletableFuture.completedFuture("one");
                      case 2 ->
                          CompletableFuture.failedFuture(
                              new BrokerNotAvailableException("broker 2 is not reachable"));
                      case 3 -> silent;
                      default -> throw new IllegalStateException("no connection to broker 4");
                    },
                50)
            .join();

    assertThat(replies).extracting(ConsoleCluster.Reply::node).containsExactly(1, 2, 3, 4);
    assertThat(replies.get(0).answered()).isTrue();
    assertThat(replies.get(0).value()).isEqualTo("one");
    assertThat(replies.get(1).failure()).isEqualTo("no answer: broker 2 is not reachable");
    assertThat(replies.get(2).failure()).isEqualTo("no answer in time");
    assertThat(replies.get(3).failure()).isEqualTo("no answer: no connection to broker 4");
  }

  @Test
  void groupsOfOtherBrokersShowOnlyWhereTheUserMayDescribeThem() {
    List<FindCoordinatorRequestData> asked = new ArrayList<>();
    ConsoleCluster cluster = cluster(findCoordinator(asked, "hidden"));
    ConsoleGroups groups = new ConsoleGroups(cluster, null, null, Runnable::run);

    ConsoleGroups.Listing listing =
        groups
            .merge(
                List.of(
                    new ConsoleCluster.Reply<>(THIS_NODE, listed("mine", "shared"), null),
                    new ConsoleCluster.Reply<>(2, listed("theirs", "hidden", "shared"), null),
                    new ConsoleCluster.Reply<ListGroupsResponseData>(3, null, "no answer in time"),
                    new ConsoleCluster.Reply<>(
                        4,
                        new ListGroupsResponseData()
                            .setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()),
                        null)),
                CALLER)
            .join();

    assertThat(listing.groups().keySet()).containsExactly("mine", "shared", "theirs");
    assertThat(listing.coordinators())
        .containsEntry("mine", THIS_NODE)
        .containsEntry("shared", THIS_NODE)
        .containsEntry("theirs", 2);
    // Only what other brokers listed and this one did not is checked, as the user, in one request.
    assertThat(asked).hasSize(1);
    assertThat(asked.get(0).coordinatorKeys()).containsExactlyInAnyOrder("theirs", "hidden");
    assertThat(listing.unanswered()).hasSize(2);
    assertThat(listing.unanswered().get(0).get("broker").asInt()).isEqualTo(3);
    assertThat(listing.unanswered().get(0).get("reason").asText()).isEqualTo("no answer in time");
    assertThat(listing.unanswered().get(1).get("broker").asInt()).isEqualTo(4);
    assertThat(listing.unanswered().get(1).get("reason").asText())
        .isEqualTo("COORDINATOR_LOAD_IN_PROGRESS");
  }

  @Test
  void onlyWhatThisBrokersHandlerAuthorizedIsSentToTheCoordinator() {
    List<Integer> sentTo = new ArrayList<>();
    ConsoleCluster cluster =
        new ConsoleCluster(
            new InProcessApis(ApiRegistry.of(describeGroups()), ConsoleApi.CLIENT_ID, "PLAINTEXT"),
            new RecordingForwarder(sentTo),
            () -> null,
            THIS_NODE);

    DescribeGroupsResponseData elsewhere = describe(cluster, "elsewhere").join();
    assertThat(sentTo).containsExactly(2);
    assertThat(elsewhere.groups().get(0).groupState()).isEqualTo("Stable");

    DescribeGroupsResponseData denied = describe(cluster, "denied").join();
    assertThat(sentTo).containsExactly(2);
    assertThat(denied.groups().get(0).errorCode())
        .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
  }

  private static CompletableFuture<DescribeGroupsResponseData> describe(
      ConsoleCluster cluster, String group) {
    return cluster.atOwner(
        ApiKeys.DESCRIBE_GROUPS,
        (short) 5,
        () -> new DescribeGroupsRequestData().setGroups(new ArrayList<>(List.of(group))),
        CALLER,
        (DescribeGroupsResponseData answer) ->
            answer.groups().get(0).errorCode() == Errors.NOT_COORDINATOR.code(),
        () -> CompletableFuture.completedFuture(2));
  }

  /**
   * DescribeGroups as this broker's handler answers the user: "denied" refused, every other group
   * coordinated elsewhere (NOT_COORDINATOR, which Kafka answers only once the user is authorized).
   */
  private static ApiHandler describeGroups() {
    return handler(
        ApiKeys.DESCRIBE_GROUPS,
        request -> {
          String group = ((DescribeGroupsRequestData) request).groups().get(0);
          DescribeGroupsResponseData response = new DescribeGroupsResponseData();
          response
              .groups()
              .add(
                  new DescribeGroupsResponseData.DescribedGroup()
                      .setGroupId(group)
                      .setErrorCode(
                          group.equals("denied")
                              ? Errors.GROUP_AUTHORIZATION_FAILED.code()
                              : Errors.NOT_COORDINATOR.code()));
          return response;
        });
  }

  @Test
  void aDiskOnOneFileSystemIsCountedOnceAndAnOfflineDirectoryIsNamed() {
    DescribeLogDirsResponseData answer = new DescribeLogDirsResponseData();
    answer.results().add(dir("/data/a", 1000, 400));
    answer.results().add(dir("/data/b", 1000, 400));
    answer.results().add(dir("/other", 500, 100));
    answer.results().add(dir("/broken", -1, -1).setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()));

    assertThat(ConsoleLogs.disk(answer)).isEqualTo(new ConsoleLogs.Disk(1500, 500, 1));
  }

  private static DescribeLogDirsResponseData.DescribeLogDirsResult dir(
      String path, long total, long usable) {
    return new DescribeLogDirsResponseData.DescribeLogDirsResult()
        .setLogDir(path)
        .setTotalBytes(total)
        .setUsableBytes(usable);
  }

  private static ListGroupsResponseData listed(String... ids) {
    ListGroupsResponseData response = new ListGroupsResponseData();
    for (String id : ids) {
      response
          .groups()
          .add(
              new ListGroupsResponseData.ListedGroup()
                  .setGroupId(id)
                  .setGroupState("Empty")
                  .setProtocolType("consumer"));
    }
    return response;
  }

  /** FindCoordinator as this broker's handler answers it: {@code denied} refused, others at 2. */
  private static ApiHandler findCoordinator(List<FindCoordinatorRequestData> asked, String denied) {
    return handler(
        ApiKeys.FIND_COORDINATOR,
        request -> {
          FindCoordinatorRequestData find = (FindCoordinatorRequestData) request;
          asked.add(find.duplicate());
          FindCoordinatorResponseData response = new FindCoordinatorResponseData();
          for (String key : find.coordinatorKeys()) {
            FindCoordinatorResponseData.Coordinator c =
                new FindCoordinatorResponseData.Coordinator().setKey(key);
            if (key.equals(denied)) {
              c.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).setNodeId(-1);
            } else {
              c.setNodeId(2).setHost("localhost").setPort(9092);
            }
            response.coordinators().add(c);
          }
          return response;
        });
  }

  /** A handler of {@code key} that answers every request with {@code answer}'s response. */
  static ApiHandler handler(ApiKeys key, Function<ApiMessage, ApiMessage> answer) {
    return new ApiHandler() {
      @Override
      public ApiKeys apiKey() {
        return key;
      }

      @Override
      public short minVersion() {
        return key.oldestVersion();
      }

      @Override
      public short maxVersion() {
        return key.latestVersion();
      }

      @Override
      public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        return CompletableFuture.completedFuture(answer.apply(request));
      }
    };
  }

  private static ConsoleCluster cluster(ApiHandler... handlers) {
    InProcessApis apis =
        new InProcessApis(ApiRegistry.of(handlers), ConsoleApi.CLIENT_ID, "PLAINTEXT");
    return new ConsoleCluster(apis, new UnusedForwarder(), () -> null, THIS_NODE);
  }

  /** Connections that answer DescribeGroups as a coordinator would, naming where they sent it. */
  private static final class RecordingForwarder extends UnusedForwarder {
    private final List<Integer> sentTo;

    RecordingForwarder(List<Integer> sentTo) {
      this.sentTo = sentTo;
    }

    @Override
    public CompletableFuture<ApiMessage> send(
        int nodeId, ApiKeys key, ApiMessage request, int timeoutMs, boolean longPoll) {
      sentTo.add(nodeId);
      DescribeGroupsResponseData response = new DescribeGroupsResponseData();
      for (String group : ((DescribeGroupsRequestData) request).groups()) {
        response
            .groups()
            .add(
                new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(group)
                    .setGroupState("Stable"));
      }
      return CompletableFuture.completedFuture(response);
    }
  }

  /** Connections that are there (so other brokers count) but never used by what is tested. */
  private static class UnusedForwarder implements Forwarder {
    @Override
    public int leader(String topic, int partition) {
      return -1;
    }

    @Override
    public Uuid topicId(String topic) {
      return Uuid.ZERO_UUID;
    }

    @Override
    public String topicName(Uuid id) {
      return null;
    }

    @Override
    public CompletableFuture<ApiMessage> send(
        int nodeId, ApiKeys key, ApiMessage request, int timeoutMs, boolean longPoll) {
      throw new AssertionError("nothing is sent to broker " + nodeId + " here: " + key);
    }

    @Override
    public void close() {}
  }
}
