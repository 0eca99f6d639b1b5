package io.brook.cli;

import io.brook.server.config.BrokerConfigDef;
import io.brook.storage.log.TopicConfigs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code brook config explain KEY}: from the same definitions that generate docs/configuration.md,
 * so the answer cannot drift from what the broker accepts.
 */
@Command(
    name = "config",
    description = "Brook's broker and topic configs.",
    subcommands = {ConfigCommand.Explain.class})
final class ConfigCommand {

  @Command(
      name = "explain",
      description = "What a broker or topic config means, its default, and whether Brook uses it.")
  static final class Explain implements Callable<Integer> {
    @Mixin FormatOption output;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "KEY")
    String key;

    @Override
    public Integer call() {
      List<Map<String, Object>> found = new ArrayList<>();
      if (BrokerConfigDef.isKnown(key)) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", key);
        m.put("kind", "broker");
        m.put("area", BrokerConfigDef.area(key).title());
        m.put("type", BrokerConfigDef.type(key).toString());
        m.put("default", BrokerConfigDef.defaultValue(key));
        m.put("used_by_brook", BrokerConfigDef.usedByBrook(key));
        m.put("description", BrokerConfigDef.documentation(key));
        found.add(m);
      }
      if (TopicConfigs.isKnown(key)) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", key);
        m.put("kind", "topic");
        m.put("type", TopicConfigs.type(key).toString());
        m.put("default", TopicConfigs.defaultValue(key));
        m.put("broker_default_from", TopicConfigs.brokerSynonyms(key));
        m.put("used_by_brook", TopicConfigs.usedByBrook(key));
        m.put("description", TopicConfigs.documentation(key));
        found.add(m);
      }
      if (found.isEmpty()) {
        throw new CliException(
            "'" + key + "' is not a broker or topic config Brook knows (docs/configuration.md)");
      }
      output.print(spec.commandLine().getOut(), found.size() == 1 ? found.get(0) : found);
      return 0;
    }
  }
}
