package io.brook.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/** Rows shared by the commands that show partitions. */
final class Topics {
  private Topics() {}

  static Map<String, Object> partitionRow(String topic, TopicPartitionInfo p) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("topic", topic);
    row.put("partition", p.partition());
    row.put("leader", p.leader() == null || p.leader().isEmpty() ? null : p.leader().id());
    row.put("replicas", p.replicas().stream().map(Node::id).toList());
    row.put("isr", p.isr().stream().map(Node::id).toList());
    return row;
  }
}
