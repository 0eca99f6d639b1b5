package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.FeatureControl;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData.FeatureUpdateKey;
import org.apache.kafka.common.message.UpdateFeaturesResponseData;
import org.apache.kafka.common.message.UpdateFeaturesResponseData.UpdatableFeatureResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * UpdateFeatures ({@code kafka-features upgrade/downgrade}), decided by the active controller:
 * finalizes feature levels with FeatureLevelRecords ({@link FeatureControl}). Versions 0 and 1
 * answer per feature; from version 2 the first failure is the top-level error, as Kafka answers.
 */
public final class UpdateFeaturesHandler extends KafkaApi {
  private final MetadataQuorum quorum;
  private final ClusterController controller;

  public UpdateFeaturesHandler(MetadataQuorum quorum, ClusterController controller) {
    super(ApiKeys.UPDATE_FEATURES);
    this.quorum = quorum;
    this.controller = controller;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    UpdateFeaturesRequestData request = (UpdateFeaturesRequestData) message;
    UpdateFeaturesResponseData response = new UpdateFeaturesResponseData();
    List<FeatureControl.Update> updates = new ArrayList<>();
    for (FeatureUpdateKey key : request.featureUpdates()) {
      FeatureControl.UpgradeType type;
      if (context.apiVersion() == 0) {
        type =
            key.allowDowngrade()
                ? FeatureControl.UpgradeType.SAFE_DOWNGRADE
                : FeatureControl.UpgradeType.UPGRADE;
      } else {
        try {
          type = FeatureControl.UpgradeType.fromCode(key.upgradeType());
        } catch (IllegalArgumentException e) {
          return CompletableFuture.completedFuture(
              response.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(e.getMessage()));
        }
      }
      updates.add(new FeatureControl.Update(key.feature(), key.maxVersionLevel(), type));
    }
    return quorum
        .submitAsync(image -> controller.updateFeatures(updates, request.validateOnly()))
        .handle(
            (results, failure) -> {
              if (failure != null) {
                return response.setErrorCode(ApiFailure.of(failure).code());
              }
              return context.apiVersion() >= 2
                  ? topLevel(response, results)
                  : perFeature(response, results);
            });
  }

  private static ApiMessage perFeature(
      UpdateFeaturesResponseData response, Map<String, ApiError> results) {
    results.forEach(
        (feature, error) ->
            response
                .results()
                .add(
                    new UpdatableFeatureResult()
                        .setFeature(feature)
                        .setErrorCode(error.error().code())
                        .setErrorMessage(error.isSuccess() ? null : error.messageOrDefault())));
    return response;
  }

  private static ApiMessage topLevel(
      UpdateFeaturesResponseData response, Map<String, ApiError> results) {
    for (ApiError error : results.values()) {
      if (error.isFailure()) {
        return response
            .setErrorCode(error.error().code())
            .setErrorMessage(error.messageOrDefault());
      }
    }
    return response;
  }
}
