package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.ControllerSettings;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.CombinedNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The broker configuration's cluster settings reach the controller side unchanged. */
class ClusterSettingsTest {

  @Test
  void theLivenessProbeAndItsGraceReachTheControllerSettings() {
    BrokerConfig config =
        CombinedNode.config(
            Map.of(
                "brook.broker.liveness.probe.grace.ms", "750",
                "broker.session.timeout.ms", "12000"));

    ControllerSettings controller = ClusterSettings.of(config).controllerSettings(config);

    assertThat(controller.livenessProbe()).isTrue();
    assertThat(controller.livenessProbeGraceMs()).isEqualTo(750);
    assertThat(controller.sessionTimeoutMs()).isEqualTo(12_000);
    assertThat(controller.nodeId()).isEqualTo(1);
  }

  @Test
  void theProbeIsOnWithAOneSecondGraceByDefaultAndCanBeSwitchedOff() {
    BrokerConfig defaults = CombinedNode.config(Map.of());
    BrokerConfig off = CombinedNode.config(Map.of("brook.broker.liveness.probe.enable", "false"));

    assertThat(ClusterSettings.of(defaults).controllerSettings(defaults).livenessProbeGraceMs())
        .isEqualTo(1_000);
    assertThat(ClusterSettings.of(off).controllerSettings(off).livenessProbe()).isFalse();
  }
}
