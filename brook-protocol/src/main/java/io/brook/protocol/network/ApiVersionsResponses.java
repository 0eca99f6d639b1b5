package io.brook.protocol.network;

import io.brook.protocol.ApiRegistry;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions responses, answered by the network layer from the {@link ApiRegistry}'s table. No
 * features are advertised (Brook has no feature levels yet), so the finalized-features epoch is -1.
 */
final class ApiVersionsResponses {
  private ApiVersionsResponses() {}

  static ApiVersionsResponseData of(ApiRegistry registry, Errors error) {
    return new ApiVersionsResponseData()
        .setErrorCode(error.code())
        .setApiKeys(registry.versionTable())
        .setThrottleTimeMs(0)
        .setFinalizedFeaturesEpoch(-1);
  }
}
