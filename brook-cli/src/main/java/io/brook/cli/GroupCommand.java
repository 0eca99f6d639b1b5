package io.brook.cli;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code brook group list|describe|lag|reset}: consumer groups. */
@Command(
    name = "group",
    description = "Consumer groups: list, describe, lag, and reset offsets.",
    subcommands = {
      GroupCommand.ListGroups.class,
      GroupCommand.Describe.class,
      GroupCommand.Lag.class,
      GroupCommand.Reset.class
    })
final class GroupCommand {

  private static final Comparator<TopicPartition> BY_PARTITION =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  /** Per partition the group has committed: committed offset, end offset, lag, owner. */
  static List<Map<String, Object>> lagRows(Admin admin, String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    ConsumerGroupDescription description =
        admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    Map<TopicPartition, String> owners = new HashMap<>();
    for (MemberDescription m : description.members()) {
      for (TopicPartition tp : m.assignment().topicPartitions()) {
        owners.put(tp, m.consumerId());
      }
    }
    Set<TopicPartition> partitions = new java.util.TreeSet<>(BY_PARTITION);
    partitions.addAll(committed.keySet());
    partitions.addAll(owners.keySet());
    Map<TopicPartition, Long> ends = offsets(admin, partitions, OffsetSpec.latest());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata c = committed.get(tp);
      Long end = ends.get(tp);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("topic", tp.topic());
      row.put("partition", tp.partition());
      row.put("committed", c == null ? null : c.offset());
      row.put("end", end);
      row.put("lag", c == null || end == null ? null : Math.max(0, end - c.offset()));
      row.put("member", owners.get(tp));
      rows.add(row);
    }
    return rows;
  }

  private static Map<TopicPartition, Long> offsets(
      Admin admin, Collection<TopicPartition> partitions, OffsetSpec spec) throws Exception {
    Map<TopicPartition, OffsetSpec> query = new HashMap<>();
    partitions.forEach(tp -> query.put(tp, spec));
    Map<TopicPartition, Long> out = new HashMap<>();
    if (query.isEmpty()) {
      return out;
    }
    for (Map.Entry<TopicPartition, ListOffsetsResultInfo> e :
        admin.listOffsets(query).all().get().entrySet()) {
      out.put(e.getKey(), e.getValue().offset());
    }
    return out;
  }

  @Command(name = "list", description = "List consumer groups.")
  static final class ListGroups extends AdminCommand {

    @Override
    Object execute(Admin admin) throws Exception {
      Collection<GroupListing> groups =
          admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (GroupListing g :
          groups.stream().sorted(Comparator.comparing(GroupListing::groupId)).toList()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("group", g.groupId());
        row.put("state", g.groupState().map(GroupState::toString).orElse(null));
        row.put("type", g.type().map(Object::toString).orElse(null));
        row.put("protocol", g.protocol());
        rows.add(row);
      }
      return rows;
    }
  }

  @Command(name = "describe", description = "A group's state, coordinator, members and offsets.")
  static final class Describe extends AdminCommand {

    @Parameters(paramLabel = "GROUP")
    String group;

    @Override
    Object execute(Admin admin) throws Exception {
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("group", d.groupId());
      result.put("state", d.groupState().toString());
      result.put("type", d.type().toString());
      result.put("coordinator", d.coordinator() == null ? null : d.coordinator().id());
      result.put("assignor", d.partitionAssignor());
      List<Map<String, Object>> members = new ArrayList<>();
      for (MemberDescription m : d.members()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("member_id", m.consumerId());
        row.put("client_id", m.clientId());
        row.put("host", m.host());
        row.put(
            "partitions",
            m.assignment().topicPartitions().stream()
                .sorted(BY_PARTITION)
                .map(TopicPartition::toString)
                .toList());
        members.add(row);
      }
      result.put("members", members);
      result.put("offsets", lagRows(admin, group));
      return result;
    }
  }

  @Command(
      name = "lag",
      description =
          "Per partition: the group's committed offset, the end offset, and the lag in records.")
  static final class Lag extends AdminCommand {

    @Parameters(paramLabel = "GROUP")
    String group;

    @Override
    Object execute(Admin admin) throws Exception {
      List<Map<String, Object>> rows = lagRows(admin, group);
      long total = 0;
      for (Map<String, Object> row : rows) {
        if (row.get("lag") instanceof Long lag) {
          total += lag;
        }
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("group", group);
      result.put("total_lag", total);
      result.put("partitions", rows);
      return result;
    }
  }

  @Command(
      name = "reset",
      description =
          "Move a group's committed offsets. Shows the plan unless --execute is given; the group"
              + " must have no active members, as with Kafka's tool.")
  static final class Reset extends AdminCommand {

    @Parameters(paramLabel = "GROUP")
    String group;

    @ArgGroup(multiplicity = "1")
    Target target;

    static final class Target {
      @Option(names = "--to-earliest", description = "To each partition's first offset.")
      boolean earliest;

      @Option(names = "--to-latest", description = "To each partition's end offset.")
      boolean latest;

      @Option(
          names = "--to-time",
          paramLabel = "ISO-8601",
          description = "To the first offset at or after this time (the end if none).")
      String time;
    }

    @Option(
        names = {"-t", "--topic"},
        description =
            "Only this topic, all its partitions (repeatable; default: every partition the group"
                + " has committed).")
    List<String> topics;

    @Option(names = "--execute", description = "Apply the change (default: only show it).")
    boolean execute;

    @Override
    Object execute(Admin admin) throws Exception {
      OffsetSpec offsetSpec = offsetSpec();
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      Set<TopicPartition> partitions = new java.util.TreeSet<>(BY_PARTITION);
      if (topics == null) {
        partitions.addAll(committed.keySet());
      } else {
        for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get().values()) {
          for (TopicPartitionInfo p : d.partitions()) {
            partitions.add(new TopicPartition(d.name(), p.partition()));
          }
        }
      }
      if (partitions.isEmpty()) {
        throw new CliException(
            "group '" + group + "' has no committed offsets: name the topics with --topic");
      }
      Map<TopicPartition, Long> targets = offsets(admin, partitions, offsetSpec);
      Map<TopicPartition, Long> latest =
          target.time == null ? Map.of() : offsets(admin, partitions, OffsetSpec.latest());
      Map<TopicPartition, OffsetAndMetadata> change = new LinkedHashMap<>();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        long to = targets.get(tp);
        if (to < 0) {
          // No record at or after the time: the end, as Kafka's tool does.
          to = latest.get(tp);
        }
        OffsetAndMetadata c = committed.get(tp);
        change.put(tp, new OffsetAndMetadata(to));
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("topic", tp.topic());
        row.put("partition", tp.partition());
        row.put("current", c == null ? null : c.offset());
        row.put("new", to);
        rows.add(row);
      }
      if (execute) {
        ConsumerGroupDescription d =
            admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        if (!d.members().isEmpty()) {
          throw new CliException(
              "group '"
                  + group
                  + "' has "
                  + d.members().size()
                  + " active member(s) (state "
                  + d.groupState()
                  + "): stop its consumers first");
        }
        admin.alterConsumerGroupOffsets(group, change).all().get();
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("group", group);
      result.put("executed", execute);
      result.put("partitions", rows);
      if (!execute) {
        spec.commandLine().getErr().println("Dry run: nothing changed. Add --execute to apply.");
        spec.commandLine().getErr().flush();
      }
      return result;
    }

    private OffsetSpec offsetSpec() {
      if (target.earliest) {
        return OffsetSpec.earliest();
      }
      if (target.latest) {
        return OffsetSpec.latest();
      }
      try {
        return OffsetSpec.forTimestamp(
            OffsetDateTime.parse(target.time).toInstant().toEpochMilli());
      } catch (DateTimeParseException e) {
        throw new ParameterException(
            spec.commandLine(),
            "--to-time must be ISO-8601 with an offset, e.g. 2026-12-01T10:00:00Z, not '"
                + target.time
                + "'");
      }
    }
  }
}
