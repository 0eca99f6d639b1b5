package io.brook.protocol.network;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.FeatureLevels;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKeyCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKeyCollection;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions responses, answered by the network layer from the {@link ApiRegistry}'s table, with
 * {@code kraft.version} 1, finalized from the start, as a Kafka 4.x cluster with a dynamic
 * controller quorum (KIP-853) advertises it; Brook's quorum is always dynamic. The other features
 * (such as {@code transaction.version}) and the finalized levels' epoch come from the registry's
 * {@link FeatureLevels}, which follow the metadata log.
 */
final class ApiVersionsResponses {
  /** Kafka's name of the KRaft protocol feature (its {@code KRaftVersion.FEATURE_NAME}). */
  static final String KRAFT_VERSION = "kraft.version";

  private ApiVersionsResponses() {}

  static ApiVersionsResponseData of(ApiRegistry registry, Errors error) {
    SupportedFeatureKeyCollection supported = new SupportedFeatureKeyCollection();
    supported.add(
        new SupportedFeatureKey()
            .setName(KRAFT_VERSION)
            .setMinVersion((short) 0)
            .setMaxVersion((short) 1));
    FinalizedFeatureKeyCollection finalized = new FinalizedFeatureKeyCollection();
    finalized.add(
        new FinalizedFeatureKey()
            .setName(KRAFT_VERSION)
            .setMinVersionLevel((short) 1)
            .setMaxVersionLevel((short) 1));
    FeatureLevels features = registry.features();
    features
        .supported()
        .forEach(
            (name, max) ->
                supported.add(
                    new SupportedFeatureKey()
                        .setName(name)
                        .setMinVersion((short) 0)
                        .setMaxVersion(max)));
    features
        .finalized()
        .forEach(
            (name, level) ->
                finalized.add(
                    new FinalizedFeatureKey()
                        .setName(name)
                        .setMinVersionLevel(level)
                        .setMaxVersionLevel(level)));
    return new ApiVersionsResponseData()
        .setErrorCode(error.code())
        .setApiKeys(registry.versionTable())
        .setThrottleTimeMs(0)
        .setSupportedFeatures(supported)
        .setFinalizedFeatures(finalized)
        .setFinalizedFeaturesEpoch(features.epoch());
  }
}
