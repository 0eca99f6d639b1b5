package io.brook.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.controller.ClusterController;
import io.brook.metadata.controller.ConfigValidator;
import io.brook.metadata.controller.ControllerConfig;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.controller.TopicResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.journal.MetadataJournal;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.PartitionRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalMetadataQuorumTest {
  private static final List<BrokerEndpoint> ENDPOINTS =
      List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"));

  @TempDir Path dir;

  private static long register(MetadataQuorum quorum, ClusterController controller) {
    return quorum.submit(
        image -> controller.registerBroker(1, Uuid.randomUuid(), ENDPOINTS, Optional.empty()));
  }

  @Test
  void submitAppliesPublishesAndSurvivesARestart() throws IOException {
    // Given
    MetadataImage before;
    try (LocalMetadataQuorum quorum = LocalMetadataQuorum.open(dir)) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
      register(quorum, controller);

      // When
      TopicResult result =
          quorum.submit(
              image ->
                  controller.createTopic(
                      "orders", 3, (short) 1, Map.of(), Map.of(), false, ConfigValidator.NONE));

      // Then
      assertThat(result.numPartitions()).isEqualTo(3);
      assertThat(quorum.image().topic("orders").orElseThrow().id()).isEqualTo(result.topicId());
      before = quorum.image();
    }
    try (LocalMetadataQuorum reopened = LocalMetadataQuorum.open(dir)) {
      assertThat(reopened.image()).isEqualTo(before);
    }
  }

  @Test
  void listenersSeeTheCurrentImageThenEveryNewOneInOrder() throws IOException {
    try (LocalMetadataQuorum quorum = LocalMetadataQuorum.open(dir)) {
      // Given
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
      List<Long> offsets = new ArrayList<>();
      quorum.addListener(image -> offsets.add(image.offset()));
      quorum.addListener(
          image -> {
            throw new IllegalStateException("a broken listener");
          });

      // When
      register(quorum, controller);
      quorum.submit(image -> controller.deleteTopic("none"));
      quorum.submit(
          image ->
              controller.createTopic(
                  "t", 2, (short) 1, Map.of(), Map.of(), false, ConfigValidator.NONE));

      // Then
      assertThat(offsets).containsExactly(-1L, 0L, 3L);
    }
  }

  @Test
  void recordsThatCannotApplyAreNeverWritten() throws IOException {
    try (LocalMetadataQuorum quorum = LocalMetadataQuorum.open(dir)) {
      // Given
      long size = Files.size(dir.resolve(MetadataJournal.FILE_NAME));

      // When / Then
      assertThatThrownBy(
              () ->
                  quorum.submit(
                      image ->
                          ControllerResult.of(
                              List.of(
                                  new PartitionRecord(
                                      Uuid.randomUuid(), 0, List.of(1), List.of(1), 1, 0, 0)),
                              "never")))
          .isInstanceOf(IllegalStateException.class);
      assertThat(quorum.image()).isEqualTo(MetadataImage.EMPTY);
      assertThat(Files.size(dir.resolve(MetadataJournal.FILE_NAME))).isEqualTo(size);
    }
  }

  @Test
  void producerIdBlocksStrictlyIncreaseAcrossRestarts() throws IOException {
    // Given
    List<ProducerIdBlock> blocks = new ArrayList<>();
    for (int restart = 0; restart < 3; restart++) {
      try (LocalMetadataQuorum quorum = LocalMetadataQuorum.open(dir)) {
        ClusterController controller =
            new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(restart));
        long epoch = register(quorum, controller);

        // When
        for (int i = 0; i < 2; i++) {
          blocks.add(quorum.submit(image -> controller.allocateProducerIds(1, epoch)));
        }
      }
    }

    // Then
    assertThat(blocks).hasSize(6);
    for (int i = 1; i < blocks.size(); i++) {
      assertThat(blocks.get(i).firstProducerId()).isEqualTo(blocks.get(i - 1).lastProducerId() + 1);
    }
    assertThat(blocks.get(0)).isEqualTo(new ProducerIdBlock(0, 1000));
  }

  @Test
  void compactsWhenTheJournalPassesItsThreshold() throws IOException {
    // Given
    MetadataImage last;
    try (LocalMetadataQuorum quorum = new LocalMetadataQuorum(MetadataJournal.open(dir), 2_000)) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(3));
      register(quorum, controller);

      // When
      for (int i = 0; i < 30; i++) {
        String name = "topic-" + i;
        quorum.submit(
            image ->
                controller.createTopic(
                    name, 1, (short) 1, Map.of(), Map.of(), false, ConfigValidator.NONE));
        if (i % 2 == 0) {
          quorum.submit(image -> controller.deleteTopic(name));
        }
      }
      last = quorum.image();

      // Then
      assertThat(Files.size(dir.resolve(MetadataJournal.FILE_NAME))).isLessThan(4_000);
    }
    assertThat(MetadataJournal.load(dir).image()).isEqualTo(last);
  }

  @Test
  void closedQuorumRefusesWork() throws IOException {
    LocalMetadataQuorum quorum = LocalMetadataQuorum.open(dir);
    quorum.close();
    quorum.close();
    assertThatThrownBy(() -> quorum.submit(image -> ControllerResult.of("x")))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void errorResponsesWriteNothing() throws IOException {
    try (LocalMetadataQuorum quorum = LocalMetadataQuorum.open(dir)) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(3));
      TopicResult result =
          quorum.submit(
              image ->
                  controller.createTopic(
                      "t", 1, (short) 1, Map.of(), Map.of(), false, ConfigValidator.NONE));
      assertThat(result.error().error()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
      assertThat(quorum.image()).isEqualTo(MetadataImage.EMPTY);
    }
  }
}
