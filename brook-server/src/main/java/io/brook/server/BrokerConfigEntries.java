package io.brook.server;

import io.brook.broker.admin.BrokerConfigView;
import io.brook.broker.admin.ConfigTypes;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.BrokerConfigDef;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;

/** The broker's properties as DescribeConfigs shows them. */
final class BrokerConfigEntries implements BrokerConfigView {
  private final BrokerConfig config;

  BrokerConfigEntries(BrokerConfig config) {
    this.config = config;
  }

  @Override
  public List<Entry> entries() {
    List<Entry> out = new ArrayList<>();
    for (String name : new java.util.TreeSet<>(BrokerConfigDef.names())) {
      entry(name).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public Optional<Entry> entry(String name) {
    if (!BrokerConfigDef.isKnown(name)) {
      return Optional.empty();
    }
    ConfigDef.Type type = BrokerConfigDef.type(name);
    if (name.equals("broker.id") && !config.isSet(name)) {
      // broker.id is node.id's older name: show the id this node runs with, as Kafka does.
      return Optional.of(
          new Entry(
              name,
              Integer.toString(config.nodeId()),
              false,
              false,
              ConfigTypes.code(type),
              BrokerConfigDef.documentation(name)));
    }
    return Optional.of(
        new Entry(
            name,
            config.valueString(name),
            config.isSet(name),
            type == ConfigDef.Type.PASSWORD,
            ConfigTypes.code(type),
            BrokerConfigDef.documentation(name)));
  }
}
