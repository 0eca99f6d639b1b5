package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.state.FeatureControl.Update;
import io.brook.controller.state.FeatureControl.UpgradeType;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class FeatureControlTest {
  private static final String TV = FeatureControl.TRANSACTION_VERSION;
  private static final String SV = FeatureControl.SHARE_VERSION;

  @Test
  void aNewClusterFinalizesTransactionVersionTwoAndShareVersionOne() {
    try (InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum()) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
      quorum.submit(image -> controller.initializeClusterId("id"));
      assertThat(quorum.image().features()).isEqualTo(Map.of(TV, (short) 2, SV, (short) 1));
      assertThat(quorum.image().featureLevel(TV)).isEqualTo((short) 2);
    }
  }

  @Test
  void downgradesNeedADowngradeTypeAndLevelZeroRemovesTheFeature() {
    try (InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum()) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
      quorum.submit(image -> controller.initializeClusterId("id"));

      Map<String, ApiError> refused =
          quorum.submit(
              image ->
                  controller.updateFeatures(
                      List.of(new Update(TV, (short) 1, UpgradeType.UPGRADE)), false));
      assertThat(refused.get(TV).error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
      assertThat(quorum.image().featureLevel(TV)).isEqualTo((short) 2);

      quorum.submit(
          image ->
              controller.updateFeatures(
                  List.of(new Update(TV, (short) 0, UpgradeType.SAFE_DOWNGRADE)), false));
      assertThat(quorum.image().features()).isEqualTo(Map.of(SV, (short) 1));

      Map<String, ApiError> upgraded =
          quorum.submit(
              image ->
                  controller.updateFeatures(
                      List.of(new Update(TV, (short) 2, UpgradeType.UPGRADE)), false));
      assertThat(upgraded.get(TV)).isEqualTo(ApiError.NONE);
      assertThat(quorum.image().featureLevel(TV)).isEqualTo((short) 2);
    }
  }

  @Test
  void unknownFeaturesUnsupportedLevelsAndValidateOnlyChangeNothing() {
    try (InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum()) {
      ClusterController controller =
          new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
      long before = quorum.image().offset();
      Map<String, ApiError> results =
          quorum.submit(
              image ->
                  controller.updateFeatures(
                      List.of(
                          new Update(TV, (short) 2, UpgradeType.UPGRADE),
                          new Update("no.such.feature", (short) 1, UpgradeType.UPGRADE)),
                      false));
      assertThat(results.get(TV)).isEqualTo(ApiError.NONE);
      assertThat(results.get("no.such.feature").error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
      assertThat(
              quorum
                  .submit(
                      image ->
                          controller.updateFeatures(
                              List.of(new Update(TV, (short) 3, UpgradeType.UPGRADE)), false))
                  .get(TV)
                  .error())
          .isEqualTo(Errors.INVALID_UPDATE_VERSION);
      quorum.submit(
          image ->
              controller.updateFeatures(
                  List.of(new Update(TV, (short) 2, UpgradeType.UPGRADE)), true));
      assertThat(quorum.image().offset()).isEqualTo(before);
      assertThat(quorum.image().features()).isEmpty();
    }
  }
}
