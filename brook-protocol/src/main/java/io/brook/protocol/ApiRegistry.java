package io.brook.protocol;

import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker serves: one {@link ApiHandler} per {@link ApiKeys}, and from the same list
 * the version table advertised in ApiVersions responses. An API without a handler is absent from
 * the table. ApiVersions itself has no handler: the network layer answers it (versions 0 to {@code
 * ApiKeys.API_VERSIONS.latestVersion()}) and it is always in the table.
 *
 * <p>Immutable and safe to share between event loops.
 */
public final class ApiRegistry {
  private final Map<ApiKeys, ApiHandler> handlers = new EnumMap<>(ApiKeys.class);
  private final List<ConnectionListener> connectionListeners;
  private final RequestThrottler throttler;
  private final Supplier<FeatureLevels> features;

  /**
   * @throws IllegalArgumentException if two handlers serve one API, a handler serves ApiVersions,
   *     or a handler's version range is empty or outside what kafka-clients can decode
   */
  public ApiRegistry(Collection<? extends ApiHandler> apiHandlers) {
    this(apiHandlers, List.of());
  }

  /**
   * @param connectionListeners told about every closed client connection
   * @throws IllegalArgumentException as {@link #ApiRegistry(Collection)}
   */
  public ApiRegistry(
      Collection<? extends ApiHandler> apiHandlers,
      Collection<? extends ConnectionListener> connectionListeners) {
    this(apiHandlers, connectionListeners, RequestThrottler.NONE, () -> FeatureLevels.NONE);
  }

  /**
   * @param throttler the client quotas every answered request is recorded against
   * @param features the feature levels ApiVersions advertises, read at every ApiVersions request
   * @throws IllegalArgumentException as {@link #ApiRegistry(Collection)}
   */
  public ApiRegistry(
      Collection<? extends ApiHandler> apiHandlers,
      Collection<? extends ConnectionListener> connectionListeners,
      RequestThrottler throttler,
      Supplier<FeatureLevels> features) {
    this.connectionListeners = List.copyOf(connectionListeners);
    this.throttler = Objects.requireNonNull(throttler, "throttler");
    this.features = Objects.requireNonNull(features, "features");
    for (ApiHandler handler : apiHandlers) {
      ApiKeys key = Objects.requireNonNull(handler.apiKey(), "apiKey of " + handler);
      if (key == ApiKeys.API_VERSIONS) {
        throw new IllegalArgumentException(
            "ApiVersions is answered by the network layer; remove handler " + handler);
      }
      checkVersionRange(key, handler);
      ApiHandler previous = handlers.putIfAbsent(key, handler);
      if (previous != null) {
        throw new IllegalArgumentException(
            "two handlers for " + key + ": " + previous + " and " + handler);
      }
    }
  }

  public static ApiRegistry of(ApiHandler... apiHandlers) {
    return new ApiRegistry(List.of(apiHandlers));
  }

  /** The feature levels to advertise now. */
  public FeatureLevels features() {
    return features.get();
  }

  /** The handler serving {@code apiKey}, if any. Always empty for ApiVersions. */
  public Optional<ApiHandler> handler(ApiKeys apiKey) {
    return Optional.ofNullable(handlers.get(apiKey));
  }

  /** The client quotas answered requests are recorded against. */
  public RequestThrottler throttler() {
    return throttler;
  }

  /** Tells every connection listener that {@code connectionId} closed. */
  public void connectionClosed(String connectionId) {
    for (ConnectionListener listener : connectionListeners) {
      listener.onConnectionClosed(connectionId);
    }
  }

  /** Whether a request of this API at this version is served (and advertised). */
  public boolean isSupported(ApiKeys apiKey, short version) {
    if (apiKey == ApiKeys.API_VERSIONS) {
      return version >= 0 && version <= ApiKeys.API_VERSIONS.latestVersion();
    }
    ApiHandler handler = handlers.get(apiKey);
    return handler != null && version >= handler.minVersion() && version <= handler.maxVersion();
  }

  /**
   * The {@code ApiKeys} array of an ApiVersions response, in API key order. A new collection on
   * every call: kafka-clients' collection elements can belong to one collection only.
   */
  public ApiVersionCollection versionTable() {
    ApiVersionCollection table = new ApiVersionCollection(handlers.size() + 1);
    for (ApiKeys key : ApiKeys.values()) {
      if (key == ApiKeys.API_VERSIONS) {
        table.add(range(key, (short) 0, ApiKeys.API_VERSIONS.latestVersion()));
      } else {
        ApiHandler handler = handlers.get(key);
        if (handler != null) {
          table.add(range(key, handler.minVersion(), handler.maxVersion()));
        }
      }
    }
    return table;
  }

  private static ApiVersion range(ApiKeys key, short min, short max) {
    return new ApiVersion().setApiKey(key.id).setMinVersion(min).setMaxVersion(max);
  }

  private static void checkVersionRange(ApiKeys key, ApiHandler handler) {
    short min = handler.minVersion();
    short max = handler.maxVersion();
    if (min > max) {
      throw new IllegalArgumentException(
          "handler " + handler + " for " + key + " has minVersion " + min + " > maxVersion " + max);
    }
    if (!key.hasValidVersion() || min < key.oldestVersion() || max > key.latestVersion(true)) {
      throw new IllegalArgumentException(
          "handler "
              + handler
              + " for "
              + key
              + " serves versions "
              + min
              + ".."
              + max
              + " but kafka-clients decodes only "
              + (key.hasValidVersion()
                  ? key.oldestVersion() + ".." + key.latestVersion(true)
                  : "none"));
    }
  }

  @Override
  public String toString() {
    return "ApiRegistry" + handlers.keySet();
  }
}
