package io.brook.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import picocli.CommandLine.Command;

/** {@code brook cluster status}. */
@Command(
    name = "cluster",
    description = "The cluster as a whole.",
    subcommands = {ClusterCommand.Status.class})
final class ClusterCommand {

  @Command(
      name = "status",
      description =
          "Brokers (fenced ones too), the controller, and partitions that are under-replicated"
              + " (fewer in-sync replicas than replicas) or offline (no leader).")
  static final class Status extends AdminCommand {

    @Override
    Object execute(Admin admin) throws Exception {
      DescribeClusterResult cluster =
          admin.describeCluster(new DescribeClusterOptions().includeFencedBrokers(true));
      Node controller = cluster.controller().get();
      Collection<Node> nodes = cluster.nodes().get();
      List<Map<String, Object>> brokers = new ArrayList<>();
      for (Node node : nodes.stream().sorted((a, b) -> Integer.compare(a.id(), b.id())).toList()) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("id", node.id());
        b.put("host", node.host());
        b.put("port", node.port());
        b.put("rack", node.rack());
        b.put("fenced", node.isFenced());
        b.put("controller", controller != null && controller.id() == node.id());
        brokers.add(b);
      }
      Set<String> topics =
          admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
      Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
      List<Map<String, Object>> underReplicated = new ArrayList<>();
      List<Map<String, Object>> offline = new ArrayList<>();
      int partitions = 0;
      for (TopicDescription topic :
          described.values().stream().sorted((a, b) -> a.name().compareTo(b.name())).toList()) {
        for (TopicPartitionInfo p : topic.partitions()) {
          partitions++;
          if (p.leader() == null || p.leader().isEmpty()) {
            offline.add(Topics.partitionRow(topic.name(), p));
          } else if (p.isr().size() < p.replicas().size()) {
            underReplicated.add(Topics.partitionRow(topic.name(), p));
          }
        }
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("cluster_id", cluster.clusterId().get());
      result.put(
          "controller_id", controller == null || controller.isEmpty() ? null : controller.id());
      result.put(
          "healthy",
          offline.isEmpty()
              && underReplicated.isEmpty()
              && brokers.stream().noneMatch(b -> Boolean.TRUE.equals(b.get("fenced"))));
      result.put("topics", topics.size());
      result.put("partitions", partitions);
      result.put("brokers", brokers);
      result.put("under_replicated_partitions", underReplicated);
      result.put("offline_partitions", offline);
      return result;
    }
  }
}
