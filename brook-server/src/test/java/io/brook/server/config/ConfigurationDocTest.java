package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is generated from the config definitions; this fails when it is stale. Run
 * with {@code -Dbrook.docs.write=true} to rewrite it.
 */
class ConfigurationDocTest {

  private static final Path DOC = Path.of("..", "docs", "configuration.md");

  @Test
  void committedPageMatchesTheDefinitions() throws Exception {
    // Given
    String generated = ConfigurationDoc.markdown();
    if (Boolean.getBoolean("brook.docs.write")) {
      Files.writeString(DOC, generated, StandardCharsets.UTF_8);
    }

    // When
    String committed = Files.readString(DOC, StandardCharsets.UTF_8);

    // Then
    assertThat(committed)
        .as("docs/configuration.md is stale; rerun this test with -Dbrook.docs.write=true")
        .isEqualTo(generated);
  }

  @Test
  void everyConfigHasARow() {
    String page = ConfigurationDoc.markdown();

    for (String name : BrokerConfigDef.names()) {
      assertThat(page).contains("| `" + name + "` |");
    }
    for (String name : io.brook.storage.log.TopicConfigs.names()) {
      assertThat(page).contains("| `" + name + "` |");
    }
  }
}
