package io.brook.server.config;

import java.util.LinkedHashMap;
import java.util.Map;

/** The configuration of a one-node combined (broker and controller) cluster, for tests. */
public final class CombinedNode {
  private CombinedNode() {}

  /**
   * The smallest valid combined-mode configuration: node 1, a PLAINTEXT and a CONTROLLER listener.
   */
  public static Map<String, String> props() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093");
    props.put("controller.listener.names", "CONTROLLER");
    props.put("controller.quorum.voters", "1@localhost:9093");
    return props;
  }

  /** {@link #props()} with {@code extra} on top. */
  public static BrokerConfig config(Map<String, String> extra) {
    Map<String, String> props = props();
    props.putAll(extra);
    return BrokerConfig.from(props);
  }
}
