package io.brook.protocol.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** A real request frame of every API at every version kafka-clients can write, for fuzz seeds. */
public final class SeedRequests {
  private SeedRequests() {}

  /** One API's request at every version with its default field values, as whole frames. */
  public static List<byte[]> framesOf(ApiKeys apiKey) {
    List<byte[]> frames = new ArrayList<>();
    for (short version = apiKey.oldestVersion(); version <= apiKey.latestVersion(true); version++) {
      ApiMessage request = ApiMessageType.fromApiKey(apiKey.id).newRequest();
      try {
        frames.add(WireClient.encodeRequest(request, version, version + 1, "seed"));
      } catch (RuntimeException e) {
        // A version whose required fields have no usable default: the other versions seed it.
      }
    }
    return frames;
  }

  /** Every API kafka-clients knows with at least one version. */
  public static List<ApiKeys> apis() {
    List<ApiKeys> apis = new ArrayList<>();
    for (ApiKeys apiKey : ApiKeys.values()) {
      if (apiKey.hasValidVersion()) {
        apis.add(apiKey);
      }
    }
    return apis;
  }
}
