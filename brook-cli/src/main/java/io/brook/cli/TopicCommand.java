package io.brook.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code brook topic create|list|describe|alter-config|delete}. */
@Command(
    name = "topic",
    description = "Create, list, describe, reconfigure and delete topics.",
    subcommands = {
      TopicCommand.Create.class,
      TopicCommand.ListTopics.class,
      TopicCommand.Describe.class,
      TopicCommand.AlterConfig.class,
      TopicCommand.Delete.class
    })
final class TopicCommand {

  private static int replicationFactor(TopicDescription d) {
    return d.partitions().isEmpty() ? 0 : d.partitions().get(0).replicas().size();
  }

  @Command(name = "create", description = "Create topics.")
  static final class Create extends AdminCommand {

    @Parameters(arity = "1..*", paramLabel = "TOPIC")
    List<String> topics;

    @Option(
        names = {"-p", "--partitions"},
        description = "Partitions (default: the broker's num.partitions).")
    Integer partitions;

    @Option(
        names = {"-r", "--replication-factor"},
        description =
            "Replicas of each partition (default: the broker's default.replication.factor).")
    Short replicationFactor;

    @Option(
        names = {"-c", "--config"},
        paramLabel = "KEY=VALUE",
        description = "A topic config, e.g. -c cleanup.policy=compact (repeatable).")
    Map<String, String> configs = new LinkedHashMap<>();

    @Override
    Object execute(Admin admin) throws Exception {
      List<NewTopic> requests = new ArrayList<>();
      for (String topic : topics) {
        requests.add(
            new NewTopic(
                    topic, Optional.ofNullable(partitions), Optional.ofNullable(replicationFactor))
                .configs(configs));
      }
      CreateTopicsResult result = admin.createTopics(requests);
      result.all().get();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (String topic : topics) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("topic", topic);
        row.put("partitions", result.numPartitions(topic).get());
        row.put("replication_factor", result.replicationFactor(topic).get());
        rows.add(row);
      }
      return rows;
    }
  }

  @Command(name = "list", description = "List topics with their partitions and replication factor.")
  static final class ListTopics extends AdminCommand {

    @Option(
        names = {"-i", "--internal"},
        description = "Include internal topics (__consumer_offsets, ...).")
    boolean internal;

    @Override
    Object execute(Admin admin) throws Exception {
      Collection<TopicListing> listings =
          admin.listTopics(new ListTopicsOptions().listInternal(internal)).listings().get();
      Map<String, TopicDescription> described =
          admin
              .describeTopics(listings.stream().map(TopicListing::name).toList())
              .allTopicNames()
              .get();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (TopicDescription d : new TreeMap<>(described).values()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", d.name());
        row.put("partitions", d.partitions().size());
        row.put("replication_factor", replicationFactor(d));
        row.put("internal", d.isInternal());
        rows.add(row);
      }
      return rows;
    }
  }

  @Command(
      name = "describe",
      description = "A topic's partitions (leader, replicas, ISR) and configs.")
  static final class Describe extends AdminCommand {

    @Parameters(paramLabel = "TOPIC")
    String topic;

    @Option(
        names = {"-a", "--all-configs"},
        description = "Show every config, not only those set on the topic.")
    boolean allConfigs;

    @Override
    Object execute(Admin admin) throws Exception {
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      Map<String, Object> configs = new TreeMap<>();
      for (ConfigEntry entry : config.entries()) {
        if (allConfigs || entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
          configs.put(entry.name(), entry.isSensitive() ? "(sensitive)" : entry.value());
        }
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("name", d.name());
      result.put("topic_id", d.topicId() == null ? null : d.topicId().toString());
      result.put("internal", d.isInternal());
      result.put("partition_count", d.partitions().size());
      result.put("replication_factor", replicationFactor(d));
      result.put("configs", configs);
      List<Map<String, Object>> partitions = new ArrayList<>();
      for (TopicPartitionInfo p : d.partitions()) {
        Map<String, Object> row = Topics.partitionRow(topic, p);
        row.remove("topic");
        partitions.add(row);
      }
      result.put("partitions", partitions);
      return result;
    }
  }

  @Command(
      name = "alter-config",
      description = "Set or remove topic configs (incrementally: others stay as they are).")
  static final class AlterConfig extends AdminCommand {

    @Parameters(paramLabel = "TOPIC")
    String topic;

    @Option(
        names = {"-c", "--set"},
        paramLabel = "KEY=VALUE",
        description = "Set a config (repeatable).")
    Map<String, String> set = new LinkedHashMap<>();

    @Option(
        names = {"-d", "--delete"},
        paramLabel = "KEY",
        description = "Remove a config, back to the broker default (repeatable).")
    List<String> delete = new ArrayList<>();

    @Override
    Object execute(Admin admin) throws Exception {
      if (set.isEmpty() && delete.isEmpty()) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "nothing to change: give -c KEY=VALUE or -d KEY");
      }
      List<AlterConfigOp> ops = new ArrayList<>();
      set.forEach(
          (k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
      for (String k : delete) {
        ops.add(new AlterConfigOp(new ConfigEntry(k, ""), AlterConfigOp.OpType.DELETE));
      }
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get();
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("topic", topic);
      result.put("set", set);
      result.put("deleted", delete);
      return result;
    }
  }

  @Command(name = "delete", description = "Delete topics and their data.")
  static final class Delete extends AdminCommand {

    @Parameters(arity = "1..*", paramLabel = "TOPIC")
    List<String> topics;

    @Override
    Object execute(Admin admin) throws Exception {
      admin.deleteTopics(topics).all().get();
      return Map.of("deleted", topics);
    }
  }
}
