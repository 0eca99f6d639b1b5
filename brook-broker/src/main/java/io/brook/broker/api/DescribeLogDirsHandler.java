package io.brook.broker.api;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeLogDirs: each of this broker's {@code log.dirs} with the partitions it hosts there (all,
 * or those named) and their size on disk, as {@code kafka-log-dirs} and {@code
 * kafka-reassign-partitions} read it. Brook never moves a replica between directories, so no
 * partition has a future log and the offset lag is 0. Partitions not hosted here are left out.
 */
public final class DescribeLogDirsHandler extends KafkaApi {
  private final ReplicaManager replicaManager;
  private final List<Path> logDirs;

  public DescribeLogDirsHandler(ReplicaManager replicaManager, List<Path> logDirs) {
    super(ApiKeys.DESCRIBE_LOG_DIRS);
    this.replicaManager = replicaManager;
    this.logDirs = logDirs.stream().map(d -> d.toAbsolutePath().normalize()).toList();
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DescribeLogDirsRequestData request = (DescribeLogDirsRequestData) message;
    Map<Path, Map<String, List<DescribeLogDirsPartition>>> byDir = new LinkedHashMap<>();
    logDirs.forEach(dir -> byDir.put(dir, new TreeMap<>()));
    for (Partition partition : wanted(request)) {
      Path dir = partition.log().dir().toAbsolutePath().normalize().getParent();
      Map<String, List<DescribeLogDirsPartition>> topics = byDir.get(dir);
      if (topics == null) {
        continue;
      }
      TopicPartition tp = partition.topicPartition();
      topics
          .computeIfAbsent(tp.topic(), t -> new ArrayList<>())
          .add(
              new DescribeLogDirsPartition()
                  .setPartitionIndex(tp.partition())
                  .setPartitionSize(sizeInBytes(partition))
                  .setOffsetLag(0)
                  .setIsFutureKey(false));
    }
    DescribeLogDirsResponseData response = new DescribeLogDirsResponseData();
    byDir.forEach(
        (dir, topics) ->
            response
                .results()
                .add(
                    replicaManager.logManager().isLogDirOffline(dir)
                        ? offline(dir)
                        : result(dir, topics)));
    return CompletableFuture.completedFuture(response);
  }

  private List<Partition> wanted(DescribeLogDirsRequestData request) {
    if (request.topics() == null) {
      return new ArrayList<>(replicaManager.partitions());
    }
    List<Partition> wanted = new ArrayList<>();
    for (DescribableLogDirTopic topic : request.topics()) {
      for (int id : topic.partitions()) {
        replicaManager.partition(new TopicPartition(topic.topic(), id)).ifPresent(wanted::add);
      }
    }
    return wanted;
  }

  /** As Kafka: an offline directory is listed with KAFKA_STORAGE_ERROR and nothing else. */
  private static DescribeLogDirsResult offline(Path dir) {
    return new DescribeLogDirsResult()
        .setErrorCode(Errors.KAFKA_STORAGE_ERROR.code())
        .setLogDir(dir.toString());
  }

  private static DescribeLogDirsResult result(
      Path dir, Map<String, List<DescribeLogDirsPartition>> topics) {
    DescribeLogDirsResult result =
        new DescribeLogDirsResult().setErrorCode(Errors.NONE.code()).setLogDir(dir.toString());
    topics.forEach(
        (name, partitions) ->
            result
                .topics()
                .add(new DescribeLogDirsTopic().setName(name).setPartitions(partitions)));
    try {
      FileStore store = Files.getFileStore(dir);
      result.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
    } catch (IOException e) {
      // An unreadable directory: Kafka answers KAFKA_STORAGE_ERROR for an offline one.
      result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
    }
    return result;
  }

  private static long sizeInBytes(Partition partition) {
    return partition.log().sizeInBytes();
  }
}
