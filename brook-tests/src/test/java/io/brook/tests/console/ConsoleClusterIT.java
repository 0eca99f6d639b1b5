package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testports.PortAllocator;
import io.brook.tests.cluster.ClusterHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The console of a three-node process cluster in headless Chromium: every broker listed active,
 * then a SIGKILLed broker shown fenced once the controller fences it, on a surviving node's page.
 */
@Timeout(180)
class ConsoleClusterIT {
  @TempDir Path dir;

  @Test
  void aKilledBrokerIsShownFenced() throws Exception {
    Map<Integer, Integer> adminPorts = new HashMap<>();
    for (int id = 1; id <= 3; id++) {
      adminPorts.put(id, PortAllocator.shared().allocate());
    }
    try (ClusterHarness cluster =
            ClusterHarness.start(
                Files.createDirectories(dir.resolve("cluster")),
                3,
                Map.of(),
                id -> Map.of("brook.admin.listener", "http://127.0.0.1:" + adminPorts.get(id)));
        Browser browser = new Browser(dir.resolve("chromium"))) {
      browser.open("http://127.0.0.1:" + adminPorts.get(1) + "/console/", "overview");
      for (int id = 1; id <= 3; id++) {
        browser.waitText(state(id), "active");
      }
      cluster.node(3).kill();
      // The page refreshes itself; the controller fences a silent broker within seconds.
      browser.waitText(state(3), "fenced", Duration.ofSeconds(60));
      assertThat(browser.driver().findElement(state(1)).getText()).isEqualTo("active");
      assertThat(browser.driver().findElement(state(2)).getText()).isEqualTo("active");
      browser.screenshot("fenced");
    }
  }

  private static By state(int id) {
    return By.cssSelector("#brokers tr[data-broker-id='" + id + "'] td.state");
  }
}
