package io.brook.server.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.server.http.KafkaRequests;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.remote.RemoteLogManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Log figures from the brokers that hold the logs, for the topic page and the overview:
 *
 * <ul>
 *   <li>a partition's log start offset and high watermark from its leader (this broker's log, or
 *       ListOffsets earliest and latest sent to the leader, one of each per leader);
 *   <li>the size of each replica from the broker holding it (DescribeLogDirs of the topic's
 *       partitions there, one per broker); the bytes in remote (tiered) storage and the log end
 *       offset only where this broker leads the partition, as no Kafka request carries them;
 *   <li>each broker's disk: its log directories' file systems, total and usable bytes
 *       (DescribeLogDirs naming no topic, so the answer carries no partition).
 * </ul>
 *
 * Other brokers are asked as this node; the caller's right to see the topic was checked before.
 */
final class ConsoleLogs {
  private static final long EARLIEST = -2;
  private static final long LATEST = -1;

  private final ConsoleCluster cluster;
  private final ReplicaManager replicas;

  ConsoleLogs(ConsoleCluster cluster, ReplicaManager replicas) {
    this.cluster = cluster;
    this.replicas = replicas;
  }

  /**
   * Fills the rows of {@code ids} (partition to its row) of {@code topic}; completes when every
   * broker asked answered or gave up, never failing.
   */
  CompletableFuture<Void> partitions(TopicImage topic, Map<Integer, ObjectNode> rows) {
    Map<Integer, List<Integer>> byLeader = new TreeMap<>();
    Map<Integer, List<Integer>> byReplica = new TreeMap<>();
    for (Map.Entry<Integer, ObjectNode> entry : rows.entrySet()) {
      int id = entry.getKey();
      PartitionImage p = topic.partitions().get(id);
      int leader = p.leader();
      if (leader == cluster.nodeId()) {
        local(topic.name(), id, entry.getValue());
      } else if (cluster.reaches(leader)) {
        byLeader.computeIfAbsent(leader, l -> new ArrayList<>()).add(id);
      }
      for (int replica : p.replicas()) {
        if (replica == cluster.nodeId() || cluster.reaches(replica)) {
          byReplica.computeIfAbsent(replica, r -> new ArrayList<>()).add(id);
        }
      }
      entry.getValue().putArray("replica_sizes");
    }
    CompletableFuture<List<ConsoleCluster.Reply<List<Map<Integer, Long>>>>> ends =
        ConsoleCluster.fanOut(
            byLeader.keySet(),
            leader ->
                listOffsets(leader, topic.name(), byLeader.get(leader), EARLIEST)
                    .thenCombine(
                        listOffsets(leader, topic.name(), byLeader.get(leader), LATEST),
                        (start, end) -> List.of(start, end)),
            ConsoleCluster.TIMEOUT_MS);
    CompletableFuture<List<ConsoleCluster.Reply<Map<Integer, Long>>>> sizes =
        ConsoleCluster.fanOut(
            byReplica.keySet(),
            node -> sizes(node, topic.name(), byReplica.get(node)),
            ConsoleCluster.TIMEOUT_MS);
    // Both written into the rows on one thread, once both are in.
    return ends.thenAcceptBoth(
        sizes,
        (leaders, held) -> {
          for (ConsoleCluster.Reply<List<Map<Integer, Long>>> reply : leaders) {
            for (int id : byLeader.get(reply.node())) {
              ObjectNode row = rows.get(id);
              if (!reply.answered()) {
                row.put("leader_error", reply.failure());
                continue;
              }
              putOffset(row, "log_start_offset", reply.value().get(0).get(id));
              putOffset(row, "high_watermark", reply.value().get(1).get(id));
            }
          }
          for (ConsoleCluster.Reply<Map<Integer, Long>> reply : held) {
            for (int id : byReplica.get(reply.node())) {
              ObjectNode row = rows.get(id);
              ObjectNode size =
                  ((ArrayNode) row.get("replica_sizes")).addObject().put("broker", reply.node());
              Long bytes = reply.answered() ? reply.value().get(id) : null;
              if (bytes == null) {
                size.put("error", reply.answered() ? "not held" : reply.failure());
                continue;
              }
              size.put("size_bytes", bytes);
              if (reply.node() == topic.partitions().get(id).leader()) {
                row.put("size_bytes", bytes);
              }
            }
          }
        });
  }

  /** The figures of a partition this broker leads, from its log. */
  private void local(String topic, int id, ObjectNode row) {
    TopicPartition tp = new TopicPartition(topic, id);
    Optional<Partition> local = replicas.partition(tp);
    if (local.isEmpty()) {
      return;
    }
    ReplicaLog log = local.get().log();
    row.put("log_start_offset", log.logStartOffset());
    row.put("log_end_offset", log.logEndOffset());
    row.put("high_watermark", log.highWatermark());
    Optional<RemoteLogManager> remote = replicas.logManager().remote();
    long remoteBytes = remote.map(r -> r.remoteSizeBytes(tp)).orElse(-1L);
    if (remoteBytes >= 0) {
      row.put("remote_size_bytes", remoteBytes);
    }
  }

  private static void putOffset(ObjectNode row, String field, Long offset) {
    if (offset != null && offset >= 0) {
      row.put(field, offset);
    }
  }

  /** ListOffsets of {@code partitions} at {@code leader}: partition to offset, errors left out. */
  private CompletableFuture<Map<Integer, Long>> listOffsets(
      int leader, String topic, List<Integer> partitions, long timestamp) {
    ListOffsetsRequestData request =
        KafkaRequests.listOffsets(
            topic, partitions.get(0), timestamp, false, ConsoleCluster.TIMEOUT_MS);
    ListOffsetsRequestData.ListOffsetsTopic t = request.topics().get(0);
    for (int p : partitions.subList(1, partitions.size())) {
      t.partitions()
          .add(
              new ListOffsetsRequestData.ListOffsetsPartition()
                  .setPartitionIndex(p)
                  .setCurrentLeaderEpoch(-1)
                  .setTimestamp(timestamp));
    }
    return cluster
        .<ListOffsetsResponseData>at(leader, ApiKeys.LIST_OFFSETS, (short) 7, request, null)
        .thenApply(
            answer -> {
              Map<Integer, Long> offsets = new HashMap<>();
              for (ListOffsetsResponseData.ListOffsetsTopicResponse r : answer.topics()) {
                for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : r.partitions()) {
                  if (p.errorCode() == Errors.NONE.code()) {
                    offsets.put(p.partitionIndex(), p.offset());
                  }
                }
              }
              return offsets;
            });
  }

  /**
   * The size of each of {@code partitions} {@code node} holds: this broker's from its logs,
   * another's from its DescribeLogDirs.
   */
  private CompletableFuture<Map<Integer, Long>> sizes(
      int node, String topic, List<Integer> partitions) {
    if (node == cluster.nodeId()) {
      Map<Integer, Long> sizes = new HashMap<>();
      for (int id : partitions) {
        replicas
            .partition(new TopicPartition(topic, id))
            .ifPresent(p -> sizes.put(id, p.log().sizeInBytes()));
      }
      return CompletableFuture.completedFuture(sizes);
    }
    DescribeLogDirsRequestData request = new DescribeLogDirsRequestData();
    request
        .topics()
        .add(
            new DescribeLogDirsRequestData.DescribableLogDirTopic()
                .setTopic(topic)
                .setPartitions(new ArrayList<>(partitions)));
    return cluster
        .<DescribeLogDirsResponseData>at(node, ApiKeys.DESCRIBE_LOG_DIRS, (short) 4, request, null)
        .thenApply(
            answer -> {
              Map<Integer, Long> sizes = new HashMap<>();
              for (DescribeLogDirsResponseData.DescribeLogDirsResult dir : answer.results()) {
                for (DescribeLogDirsResponseData.DescribeLogDirsTopic t : dir.topics()) {
                  if (!t.name().equals(topic)) {
                    continue;
                  }
                  for (DescribeLogDirsResponseData.DescribeLogDirsPartition p : t.partitions()) {
                    if (!p.isFutureKey()) {
                      sizes.merge(p.partitionIndex(), p.partitionSize(), Long::sum);
                    }
                  }
                }
              }
              return sizes;
            });
  }

  /** A broker's disk: its log directories' file systems, summed over distinct ones. */
  record Disk(long totalBytes, long usableBytes, int offlineDirs) {}

  /**
   * The disk of every broker the console reaches, or why a broker gave none; empty when the caller
   * may not describe log directories (DescribeLogDirs as the caller to this broker's handler, which
   * needs DESCRIBE on the cluster, decides: the others are then asked as this node).
   */
  CompletableFuture<Optional<List<ConsoleCluster.Reply<Disk>>>> disks(InProcessApis.Caller caller) {
    return logDirs(cluster.nodeId(), caller)
        .handle(
            (answer, error) ->
                error == null && answer.errorCode() == Errors.NONE.code() ? answer : null)
        .thenCompose(
            local -> {
              if (local == null) {
                return CompletableFuture.completedFuture(
                    Optional.<List<ConsoleCluster.Reply<Disk>>>empty());
              }
              return ConsoleCluster.fanOut(
                      cluster.brokers(),
                      node ->
                          node == cluster.nodeId()
                              ? CompletableFuture.completedFuture(disk(local))
                              : logDirs(node, caller).thenApply(ConsoleLogs::disk),
                      ConsoleCluster.TIMEOUT_MS)
                  .thenApply(Optional::of);
            });
  }

  private CompletableFuture<DescribeLogDirsResponseData> logDirs(
      int node, InProcessApis.Caller caller) {
    // Naming no topic (an empty list, not null): the answer lists the directories only.
    return cluster.at(
        node, ApiKeys.DESCRIBE_LOG_DIRS, (short) 4, new DescribeLogDirsRequestData(), caller);
  }

  static Disk disk(DescribeLogDirsResponseData answer) {
    long total = 0;
    long usable = 0;
    int offline = 0;
    // Directories on one file system report it each: count each (total, usable) once.
    TreeSet<String> seen = new TreeSet<>();
    for (DescribeLogDirsResponseData.DescribeLogDirsResult dir : answer.results()) {
      if (dir.errorCode() != Errors.NONE.code()) {
        offline++;
        continue;
      }
      if (dir.totalBytes() >= 0 && seen.add(dir.totalBytes() + "/" + dir.usableBytes())) {
        total += dir.totalBytes();
        usable += dir.usableBytes();
      }
    }
    return new Disk(total, usable, offline);
  }
}
