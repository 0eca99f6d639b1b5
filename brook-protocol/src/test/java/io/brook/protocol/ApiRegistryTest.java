package io.brook.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.testing.TestHandlers;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ApiRegistryTest {
  private final ApiHandler metadata =
      TestHandlers.answering(
          ApiKeys.METADATA, (short) 4, (short) 12, (c, r) -> new MetadataResponseData());
  private final ApiHandler fetch =
      TestHandlers.answering(ApiKeys.FETCH, (short) 4, (short) 17, (c, r) -> null);

  @Test
  void buildsDispatchAndVersionTableFromOneList() {
    // When
    ApiRegistry registry = ApiRegistry.of(fetch, metadata);

    // Then
    assertThat(registry.handler(ApiKeys.METADATA)).containsSame(metadata);
    assertThat(registry.handler(ApiKeys.PRODUCE)).isEmpty();
    assertThat(registry.handler(ApiKeys.API_VERSIONS)).isEmpty();
    assertThat(registry.versionTable())
        .containsExactly(
            range(ApiKeys.FETCH, 4, 17),
            range(ApiKeys.METADATA, 4, 12),
            range(ApiKeys.API_VERSIONS, 0, ApiKeys.API_VERSIONS.latestVersion()));
  }

  @Test
  void answersWhichVersionsAreSupported() {
    ApiRegistry registry = ApiRegistry.of(metadata);

    assertThat(registry.isSupported(ApiKeys.METADATA, (short) 4)).isTrue();
    assertThat(registry.isSupported(ApiKeys.METADATA, (short) 12)).isTrue();
    assertThat(registry.isSupported(ApiKeys.METADATA, (short) 3)).isFalse();
    assertThat(registry.isSupported(ApiKeys.METADATA, (short) 13)).isFalse();
    assertThat(registry.isSupported(ApiKeys.PRODUCE, (short) 9)).isFalse();
    assertThat(registry.isSupported(ApiKeys.API_VERSIONS, (short) 0)).isTrue();
    assertThat(registry.isSupported(ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.latestVersion()))
        .isTrue();
    assertThat(registry.isSupported(ApiKeys.API_VERSIONS, (short) -1)).isFalse();
    assertThat(
            registry.isSupported(
                ApiKeys.API_VERSIONS, (short) (ApiKeys.API_VERSIONS.latestVersion() + 1)))
        .isFalse();
  }

  @Test
  void everyCallGivesAFreshTable() {
    ApiRegistry registry = ApiRegistry.of(metadata);

    ApiVersionCollection first = registry.versionTable();
    ApiVersionCollection second = registry.versionTable();

    assertThat(first).isEqualTo(second);
    assertThat(first.iterator().next()).isNotSameAs(second.iterator().next());
  }

  @Test
  void refusesTwoHandlersForOneApi() {
    ApiHandler another = TestHandlers.answering(ApiKeys.METADATA, (c, r) -> null);

    assertThatThrownBy(() -> ApiRegistry.of(metadata, another))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two handlers for METADATA");
  }

  @Test
  void refusesAHandlerForApiVersions() {
    ApiHandler apiVersions = TestHandlers.answering(ApiKeys.API_VERSIONS, (c, r) -> null);

    assertThatThrownBy(() -> ApiRegistry.of(apiVersions))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("network layer");
  }

  @Test
  void refusesVersionRangesKafkaClientsCannotDecode() {
    assertThatThrownBy(
            () ->
                ApiRegistry.of(
                    TestHandlers.answering(ApiKeys.FETCH, (short) 0, (short) 10, (c, r) -> null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kafka-clients decodes only");
    assertThatThrownBy(
            () ->
                ApiRegistry.of(
                    TestHandlers.answering(ApiKeys.FETCH, (short) 4, (short) 99, (c, r) -> null)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                ApiRegistry.of(
                    TestHandlers.answering(ApiKeys.FETCH, (short) 9, (short) 8, (c, r) -> null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minVersion 9 > maxVersion 8");
  }

  private static ApiVersion range(ApiKeys key, int min, int max) {
    return new ApiVersion().setApiKey(key.id).setMinVersion((short) min).setMaxVersion((short) max);
  }
}
