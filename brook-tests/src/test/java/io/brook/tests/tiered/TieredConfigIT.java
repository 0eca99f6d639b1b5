package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.BrookExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A broker without {@code remote.log.storage.system.enable} refuses, as Kafka does, to create or
 * alter a topic with {@code remote.storage.enable=true} (INVALID_CONFIG with Kafka's message),
 * rather than storing a setting it would ignore.
 */
@Timeout(60)
class TieredConfigIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static final String DISABLED = "Tiered Storage functionality is disabled in the broker";

  @Test
  void createWithRemoteStorageIsRefusedWithoutTieredStorage() {
    try (Admin admin = admin()) {
      NewTopic topic =
          new NewTopic("tiered-refused", 1, (short) 1)
              .configs(Map.of("remote.storage.enable", "true"));
      assertThatThrownBy(() -> admin.createTopics(List.of(topic)).all().get())
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining(DISABLED);
      assertThat(topicNames(admin)).doesNotContain("tiered-refused");
    }
  }

  @Test
  void alterToRemoteStorageIsRefusedWithoutTieredStorage() throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic("tiered-alter", 1, (short) 1))).all().get();
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "tiered-alter");
      AlterConfigOp enable =
          new AlterConfigOp(
              new ConfigEntry("remote.storage.enable", "true"), AlterConfigOp.OpType.SET);
      assertThatThrownBy(
              () -> admin.incrementalAlterConfigs(Map.of(resource, List.of(enable))).all().get())
          .cause()
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining(DISABLED);
      String value =
          admin
              .describeConfigs(List.of(resource))
              .all()
              .get()
              .get(resource)
              .get("remote.storage.enable")
              .value();
      assertThat(value).isEqualTo("false");
    }
  }

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()));
  }

  private static java.util.Set<String> topicNames(Admin admin) {
    try {
      return admin.listTopics().names().get();
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError(e);
    }
  }
}
