package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.metadata.record.ClusterIdRecord;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClusterIdTest {
  @Test
  void theFirstProposalIsRecordedOnceAndLaterOnesGetIt() {
    try (InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum()) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));

      String first = quorum.submit(image -> controller.initializeClusterId("first-id"));
      long offset = quorum.image().offset();
      ControllerResult<String> second = controller.initializeClusterId("second-id");

      assertThat(first).isEqualTo("first-id");
      assertThat(quorum.image().clusterId()).contains("first-id");
      assertThat(second.records()).isEmpty();
      assertThat(second.response()).isEqualTo("first-id");
      assertThat(quorum.image().offset()).isEqualTo(offset);
      assertThat(quorum.image().toRecords()).contains(new ClusterIdRecord("first-id"));
    }
  }
}
