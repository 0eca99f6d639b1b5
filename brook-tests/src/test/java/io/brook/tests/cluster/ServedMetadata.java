package io.brook.tests.cluster;

import io.brook.tests.RawKafkaClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * The metadata one broker serves, read with a Metadata v12 request sent to that broker alone (a
 * kafka-clients Admin may send its requests to any broker it knows), in a form two brokers can be
 * compared by.
 *
 * @param clusterId the cluster id
 * @param controllerId the controller the broker names
 * @param brokers {@code id -> host:port[/rack]} of the unfenced brokers
 * @param partitions {@code topic-partition -> leader/epoch/replicas/isr}
 */
public record ServedMetadata(
    String clusterId,
    int controllerId,
    Map<Integer, String> brokers,
    Map<String, String> partitions) {
  static final short VERSION = 12;

  /** What the broker at {@code bootstrap} ({@code host:port}) serves now. */
  public static ServedMetadata from(String bootstrap) {
    String[] hostPort = bootstrap.split(":");
    try (RawKafkaClient client = new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]))) {
      ByteBuffer body =
          client.send(
              new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false), VERSION);
      return of(new MetadataResponseData(new ByteBufferAccessor(body), VERSION));
    } catch (IOException e) {
      throw new UncheckedIOException("Metadata from " + bootstrap, e);
    }
  }

  private static ServedMetadata of(MetadataResponseData response) {
    Map<Integer, String> brokers = new TreeMap<>();
    for (MetadataResponseData.MetadataResponseBroker b : response.brokers()) {
      brokers.put(b.nodeId(), b.host() + ":" + b.port() + (b.rack() == null ? "" : "/" + b.rack()));
    }
    Map<String, String> partitions = new TreeMap<>();
    for (MetadataResponseTopic topic : response.topics()) {
      for (MetadataResponsePartition p : topic.partitions()) {
        partitions.put(
            topic.name() + "-" + p.partitionIndex(),
            "leader="
                + p.leaderId()
                + " epoch="
                + p.leaderEpoch()
                + " replicas="
                + p.replicaNodes()
                + " isr="
                + p.isrNodes()
                + " id="
                + topic.topicId());
      }
    }
    // Kafka's brokers name a random live broker as the controller (KRaft hides the quorum from
    // clients), so with Kafka under test the field says nothing two brokers could agree on.
    int controllerId = ClusterHarness.runsKafka() ? -1 : response.controllerId();
    return new ServedMetadata(response.clusterId(), controllerId, brokers, partitions);
  }

  /** The leader of each partition, by {@code topic-partition}. */
  Map<String, Integer> leaders() {
    Map<String, Integer> leaders = new TreeMap<>();
    partitions.forEach(
        (tp, state) -> leaders.put(tp, Integer.parseInt(state.substring(7, state.indexOf(' ')))));
    return leaders;
  }

  /** The topics this broker serves. */
  public List<String> topics() {
    return partitions.keySet().stream()
        .map(tp -> tp.substring(0, tp.lastIndexOf('-')))
        .distinct()
        .toList();
  }
}
