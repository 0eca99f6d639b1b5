package io.brook.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaEntitiesTest {
  private static final String KEY = "producer_byte_rate";

  /** An entity from type/name pairs; a null name is the type's default. */
  private static Map<String, String> entity(String... typeNames) {
    Map<String, String> entity = new HashMap<>();
    for (int i = 0; i < typeNames.length; i += 2) {
      entity.put(typeNames[i], typeNames[i + 1]);
    }
    return entity;
  }

  /** All eight levels set, each with a value telling which it is. */
  private static Map<Map<String, String>, Map<String, Double>> allEightLevels() {
    Map<Map<String, String>, Map<String, Double>> quotas = new HashMap<>();
    quotas.put(entity("user", "alice", "client-id", "app"), Map.of(KEY, 1.0));
    quotas.put(entity("user", "alice", "client-id", null), Map.of(KEY, 2.0));
    quotas.put(entity("user", "alice"), Map.of(KEY, 3.0));
    quotas.put(entity("user", null, "client-id", "app"), Map.of(KEY, 4.0));
    quotas.put(entity("user", null, "client-id", null), Map.of(KEY, 5.0));
    quotas.put(entity("user", null), Map.of(KEY, 6.0));
    quotas.put(entity("client-id", "app"), Map.of(KEY, 7.0));
    quotas.put(entity("client-id", null), Map.of(KEY, 8.0));
    return quotas;
  }

  @Test
  void theMostSpecificOfKafkasEightEntitiesWinsAndNamesTheSensor() {
    // Given
    Map<Map<String, String>, Map<String, Double>> quotas = allEightLevels();
    // Each level in Kafka's order, with the tags its quota is measured under
    Object[][] expected = {
      {1.0, "alice", "app"},
      {2.0, "alice", "app"},
      {3.0, "alice", ""},
      {4.0, "alice", "app"},
      {5.0, "alice", "app"},
      {6.0, "alice", ""},
      {7.0, "", "app"},
      {8.0, "", "app"},
    };

    for (Object[] level : expected) {
      // When
      QuotaEntities.Resolved resolved = QuotaEntities.of(quotas).resolve(KEY, "alice", "app");

      // Then
      assertThat(resolved)
          .isEqualTo(
              new QuotaEntities.Resolved((Double) level[0], (String) level[1], (String) level[2]));
      // Remove the winner: the next level applies
      quotas.values().removeIf(q -> q.get(KEY).equals(level[0]));
    }
    assertThat(QuotaEntities.of(quotas).resolve(KEY, "alice", "app").unlimited()).isTrue();
  }

  @Test
  void otherUsersAndClientsFallToTheDefaults() {
    QuotaEntities quotas = QuotaEntities.of(allEightLevels());

    assertThat(quotas.resolve(KEY, "bob", "app"))
        .isEqualTo(new QuotaEntities.Resolved(4.0, "bob", "app"));
    assertThat(quotas.resolve(KEY, "bob", "other"))
        .isEqualTo(new QuotaEntities.Resolved(5.0, "bob", "other"));
    assertThat(quotas.resolve(KEY, "alice", "other"))
        .isEqualTo(new QuotaEntities.Resolved(2.0, "alice", "other"));
  }

  @Test
  void withoutAnyQuotaOfAKindClientsAreMeasuredPerClientId() {
    QuotaEntities quotas = QuotaEntities.of(allEightLevels());

    assertThat(quotas.enabled("consumer_byte_rate")).isFalse();
    assertThat(quotas.resolve("consumer_byte_rate", "alice", "app"))
        .isEqualTo(new QuotaEntities.Resolved(Double.MAX_VALUE, "", "app"));
  }

  @Test
  void ipQuotasAreNotClientQuotas() {
    QuotaEntities quotas =
        QuotaEntities.of(Map.of(entity("ip", null), Map.of("connection_creation_rate", 5.0)));

    assertThat(quotas.enabled("connection_creation_rate")).isFalse();
  }
}
