package io.brook.coordinator.api;

import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;

/** The APIs a coordinator service serves, by key: what the broker may advertise for each. */
public final class ServedApis {
  private final Map<ApiKeys, GroupApi> byKey = new EnumMap<>(ApiKeys.class);

  public ServedApis(GroupApi... apis) {
    for (GroupApi api : apis) {
      byKey.put(api.apiKey(), api);
    }
  }

  /**
   * @throws IllegalArgumentException if {@code api} is not one of these
   */
  public short maxVersion(ApiKeys api) {
    GroupApi served = byKey.get(api);
    if (served == null) {
      throw new IllegalArgumentException(api + " is not served by this coordinator");
    }
    return served.maxVersion();
  }
}
