package io.brook.broker.quota;

import io.brook.metadata.quota.QuotaKeys;
import java.util.HashMap;
import java.util.Map;

/**
 * The client quotas of one metadata image, resolved as Kafka's default quota callback does: for a
 * (user, client-id) the most specific of eight entities that sets the quota wins, and the entity
 * that won names the sensor the client shares with every other client it covers. Immutable.
 */
final class QuotaEntities {
  /**
   * A client's quota and the metric tags it is measured under.
   *
   * @param bound the quota, {@link Double#MAX_VALUE} when none applies
   * @param userTag the {@code user} tag ({@code ""} when the quota is not per user)
   * @param clientIdTag the {@code client-id} tag ({@code ""} when the quota is not per client)
   */
  record Resolved(double bound, String userTag, String clientIdTag) {
    /**
     * The metric tags of the entity, {@code user} then {@code client-id} as in Kafka's MBean names;
     * ordered, so every run names the same MBean (an unordered map would not).
     */
    Map<String, String> metricTags() {
      Map<String, String> tags = new java.util.LinkedHashMap<>();
      tags.put("user", userTag);
      tags.put("client-id", clientIdTag);
      return tags;
    }

    boolean unlimited() {
      return bound == Double.MAX_VALUE;
    }
  }

  static final QuotaEntities EMPTY = new QuotaEntities(Map.of());

  /** Quota values by key, then by entity. */
  private final Map<String, Map<Map<String, String>, Double>> byKey;

  private QuotaEntities(Map<String, Map<Map<String, String>, Double>> byKey) {
    this.byKey = byKey;
  }

  /** The user and client-id quotas of an image's {@code clientQuotas()}. */
  static QuotaEntities of(Map<Map<String, String>, Map<String, Double>> clientQuotas) {
    Map<String, Map<Map<String, String>, Double>> byKey = new HashMap<>();
    clientQuotas.forEach(
        (entity, quotas) -> {
          if (!entity.containsKey(QuotaKeys.IP)) {
            quotas.forEach(
                (key, value) ->
                    byKey.computeIfAbsent(key, k -> new HashMap<>()).put(entity, value));
          }
        });
    return new QuotaEntities(byKey);
  }

  /** Whether any entity has a quota of this key. */
  boolean enabled(String key) {
    return byKey.containsKey(key);
  }

  /**
   * The quota {@code key} of {@code user}'s client {@code clientId}, in Kafka's order:
   * user+client-id, user+default client-id, user, default user+client-id, default user+default
   * client-id, default user, client-id, default client-id.
   */
  Resolved resolve(String key, String user, String clientId) {
    Map<Map<String, String>, Double> quotas = byKey.get(key);
    if (quotas == null) {
      // No quota of this kind anywhere: measured per client-id, as Kafka does.
      return new Resolved(Double.MAX_VALUE, "", clientId);
    }
    Double q;
    if ((q = quotas.get(entity(user, clientId))) != null
        || (q = quotas.get(entity(user, null, true))) != null) {
      return new Resolved(q, user, clientId);
    }
    if ((q = quotas.get(userOnly(user))) != null) {
      return new Resolved(q, user, "");
    }
    if ((q = quotas.get(entity(null, clientId, true))) != null
        || (q = quotas.get(entity(null, null, true))) != null) {
      return new Resolved(q, user, clientId);
    }
    if ((q = quotas.get(userOnly(null))) != null) {
      return new Resolved(q, user, "");
    }
    if ((q = quotas.get(clientOnly(clientId))) != null
        || (q = quotas.get(clientOnly(null))) != null) {
      return new Resolved(q, "", clientId);
    }
    return new Resolved(Double.MAX_VALUE, user, clientId);
  }

  private static Map<String, String> entity(String user, String clientId) {
    return entity(user, clientId, true);
  }

  /** A user and client-id entity; {@code null} names are the defaults. */
  private static Map<String, String> entity(String user, String clientId, boolean both) {
    Map<String, String> entity = new HashMap<>(4);
    entity.put(QuotaKeys.USER, user);
    if (both) {
      entity.put(QuotaKeys.CLIENT_ID, clientId);
    }
    return entity;
  }

  private static Map<String, String> userOnly(String user) {
    return entity(user, null, false);
  }

  private static Map<String, String> clientOnly(String clientId) {
    Map<String, String> entity = new HashMap<>(2);
    entity.put(QuotaKeys.CLIENT_ID, clientId);
    return entity;
  }
}
