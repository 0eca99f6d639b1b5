package io.brook.controller.voters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ClusterIdRecord;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import io.brook.quorum.QuorumSettings;
import io.brook.quorum.RaftMetadataQuorum;
import io.brook.testports.PortAllocator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.message.RemoveRaftVoterRequestData;
import org.apache.kafka.common.message.RemoveRaftVoterResponseData;
import org.apache.kafka.common.message.UpdateRaftVoterRequestData;
import org.apache.kafka.common.message.UpdateRaftVoterResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The voter-change APIs' own checks, against a real single-voter quorum. */
class VoterHandlersTest {
  @TempDir Path dir;
  private RaftMetadataQuorum quorum;
  private final Uuid directoryId = Uuid.randomUuid();
  private final InetSocketAddress endpoint =
      InetSocketAddress.createUnresolved("127.0.0.1", PortAllocator.shared().allocate());

  @BeforeEach
  void start() throws Exception {
    quorum =
        RaftMetadataQuorum.start(
            new QuorumSettings(
                    1,
                    Map.of(1, endpoint),
                    dir,
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(5),
                    10_000,
                    QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES)
                .withDynamicQuorum(directoryId, List.of(), endpoint));
    await().atMost(Duration.ofSeconds(30)).until(quorum::isActiveController);
    quorum.submit(
        image -> ControllerResult.of(List.of(new ClusterIdRecord("cluster-a")), Boolean.TRUE));
  }

  @AfterEach
  void stop() {
    quorum.close();
  }

  @Test
  void addRaftVoterWithoutTheControllerListenerIsAnInvalidRequest() throws Exception {
    AddRaftVoterRequestData request =
        new AddRaftVoterRequestData()
            .setClusterId("cluster-a")
            .setVoterId(2)
            .setVoterDirectoryId(Uuid.randomUuid())
            .setTimeoutMs(5_000);
    request
        .listeners()
        .add(
            new AddRaftVoterRequestData.Listener()
                .setName("PLAINTEXT")
                .setHost("127.0.0.1")
                .setPort(9092));

    AddRaftVoterResponseData response =
        (AddRaftVoterResponseData)
            call(new AddRaftVoterHandler(quorum, image(), "CONTROLLER"), request);

    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.INVALID_REQUEST);
  }

  @Test
  void requestsNamingAnotherClusterAreRefused() throws Exception {
    assertThat(remove("cluster-b", 1, directoryId)).isEqualTo(Errors.INCONSISTENT_CLUSTER_ID);
  }

  @Test
  void removingTheLastVoterOrAnUnknownOneIsVoterNotFound() throws Exception {
    assertThat(remove("cluster-a", 1, directoryId)).isEqualTo(Errors.VOTER_NOT_FOUND);
    assertThat(remove("cluster-a", 1, Uuid.randomUuid())).isEqualTo(Errors.VOTER_NOT_FOUND);
  }

  @Test
  void updateRaftVoterOfAnUnknownVoterIsVoterNotFoundAndNamesTheLeader() throws Exception {
    UpdateRaftVoterRequestData request =
        new UpdateRaftVoterRequestData()
            .setClusterId("cluster-a")
            .setVoterId(1)
            .setVoterDirectoryId(Uuid.randomUuid());
    request
        .listeners()
        .add(
            new UpdateRaftVoterRequestData.Listener()
                .setName("CONTROLLER")
                .setHost("localhost")
                .setPort(endpoint.getPort()));

    UpdateRaftVoterResponseData response =
        (UpdateRaftVoterResponseData)
            call(new UpdateRaftVoterHandler(quorum, image(), "CONTROLLER"), request);

    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.VOTER_NOT_FOUND);
    assertThat(response.currentLeader().leaderId()).isEqualTo(1);
  }

  private Errors remove(String clusterId, int id, Uuid directory) throws Exception {
    RemoveRaftVoterRequestData request =
        new RemoveRaftVoterRequestData()
            .setClusterId(clusterId)
            .setVoterId(id)
            .setVoterDirectoryId(directory);
    RemoveRaftVoterResponseData response =
        (RemoveRaftVoterResponseData) call(new RemoveRaftVoterHandler(quorum, image()), request);
    return Errors.forCode(response.errorCode());
  }

  private java.util.function.Supplier<MetadataImage> image() {
    return quorum::image;
  }

  private static ApiMessage call(ApiHandler handler, ApiMessage request) throws Exception {
    RequestContext context =
        new RequestContext(
            new RequestHeader(handler.apiKey(), handler.maxVersion(), "test", 1),
            "PLAINTEXT",
            InetAddress.getLoopbackAddress(),
            "test-connection",
            System.nanoTime());
    return handler.handle(context, request).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
