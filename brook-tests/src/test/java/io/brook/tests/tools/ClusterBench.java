package io.brook.tests.tools;

import io.brook.tests.RawKafkaClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Used by {@code scripts/cluster-bench.sh}, not a test.
 *
 * <pre>
 * ClusterBench uuid                                 # a random cluster id (Kafka's format step)
 * ClusterBench await-brokers BROKERS COUNT SINCE_MS  # until every broker lists COUNT brokers
 * ClusterBench create BROKERS TOPICS PARTITIONS RF   # BROKERS: host:port,... one per broker
 * ClusterBench failover BROKERS ID:PID,...           # kills the active controller's process
 * </pre>
 *
 * {@code create} makes TOPICS topics of PARTITIONS partitions in CreateTopics requests of 50
 * topics, and prints how long until the last was acknowledged and until every broker served all of
 * them (a Metadata request to each broker). {@code failover} kills the process of the node the
 * brokers name as controller and prints how long until a topic creation through another broker
 * succeeds.
 */
public final class ClusterBench {
  private static final int TOPICS_PER_REQUEST = 50;

  private ClusterBench() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("uuid")) {
      System.out.println(Uuid.randomUuid());
      return;
    }
    String[] brokers = args[1].split(",");
    switch (args[0]) {
      case "create" ->
          create(
              brokers,
              Integer.parseInt(args[2]),
              Integer.parseInt(args[3]),
              Short.parseShort(args[4]));
      case "await-brokers" ->
          awaitBrokers(brokers, Integer.parseInt(args[2]), Long.parseLong(args[3]));
      case "await-isr" -> awaitFullIsr(brokers[0], Long.parseLong(args[2]));
      case "failover" -> failover(brokers, args[2]);
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  private static void awaitBrokers(String[] brokers, int count, long sinceMs)
      throws InterruptedException {
    for (String broker : brokers) {
      while (true) {
        try {
          if (brokersListedBy(broker) >= count) {
            break;
          }
        } catch (Exception e) {
          // Not listening yet.
        }
        Thread.sleep(50);
      }
    }
    System.out.println(
        "every_broker_lists_"
            + count
            + "_brokers_after_ms="
            + (System.currentTimeMillis() - sinceMs));
  }

  /**
   * Waits until every partition in {@code broker}'s Metadata has every replica in its ISR (a
   * restarted node has caught up everywhere it is a replica): the time it is serving again.
   */
  private static void awaitFullIsr(String broker, long sinceMs) throws InterruptedException {
    while (true) {
      try {
        long incomplete = 0;
        for (MetadataResponseData.MetadataResponseTopic topic : metadata(broker).topics()) {
          for (MetadataResponseData.MetadataResponsePartition p : topic.partitions()) {
            if (p.isrNodes().size() < p.replicaNodes().size() || p.leaderId() < 0) {
              incomplete++;
            }
          }
        }
        if (incomplete == 0) {
          break;
        }
      } catch (Exception e) {
        // Not answering yet.
      }
      Thread.sleep(200);
    }
    System.out.println(
        "every_partition_full_isr_after_ms=" + (System.currentTimeMillis() - sinceMs));
  }

  private static void create(String[] brokers, int topics, int partitions, short rf)
      throws Exception {
    long started = System.nanoTime();
    try (Admin admin = admin(String.join(",", brokers))) {
      List<KafkaFuture<Void>> pending = new ArrayList<>();
      for (int first = 0; first < topics; first += TOPICS_PER_REQUEST) {
        List<NewTopic> batch = new ArrayList<>();
        for (int t = first; t < Math.min(topics, first + TOPICS_PER_REQUEST); t++) {
          batch.add(new NewTopic(String.format("bench-%05d", t), partitions, rf));
        }
        CreateTopicsResult result = admin.createTopics(batch);
        pending.add(result.all());
      }
      for (KafkaFuture<Void> future : pending) {
        future.get(10, TimeUnit.MINUTES);
      }
    }
    long createdMs = (System.nanoTime() - started) / 1_000_000;
    long expected = (long) topics * partitions;
    for (String broker : brokers) {
      while (servedPartitions(broker) < expected) {
        Thread.sleep(100);
      }
    }
    long servedMs = (System.nanoTime() - started) / 1_000_000;
    System.out.println(
        "topics="
            + topics
            + " partitions="
            + expected
            + " created_ms="
            + createdMs
            + " served_by_every_broker_ms="
            + servedMs);
  }

  private static void failover(String[] brokers, String pids) throws Exception {
    int controller;
    try (Admin admin = admin(String.join(",", brokers))) {
      controller = admin.describeMetadataQuorum().quorumInfo().get().leaderId();
    }
    long pid = -1;
    for (String entry : pids.split(",")) {
      String[] idPid = entry.split(":");
      if (Integer.parseInt(idPid[0]) == controller) {
        pid = Long.parseLong(idPid[1]);
      }
    }
    List<String> others = new ArrayList<>();
    for (int i = 0; i < brokers.length; i++) {
      if (i + 1 != controller) {
        others.add(brokers[i]);
      }
    }
    ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
    try (Admin admin = admin(String.join(",", others))) {
      admin.describeCluster().nodes().get();
      process.destroyForcibly();
      long killed = System.nanoTime();
      process.onExit().get();
      admin
          .createTopics(List.of(new NewTopic("after-failover", 1, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      System.out.println(
          "killed_controller="
              + controller
              + " topic_created_after_ms="
              + (System.nanoTime() - killed) / 1_000_000);
    }
  }

  private static long servedPartitions(String broker) throws Exception {
    long count = 0;
    for (MetadataResponseData.MetadataResponseTopic topic : metadata(broker).topics()) {
      count += topic.partitions().size();
    }
    return count;
  }

  /**
   * The brokers {@code broker} lists, from a Metadata request for no topic: polled every 50 ms
   * while a node restarts, a request for every topic (24,000 partitions) would load the brokers
   * being measured and this tool itself.
   */
  private static int brokersListedBy(String broker) throws Exception {
    String[] hostPort = broker.split(":");
    try (RawKafkaClient client = new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]))) {
      ByteBuffer body =
          client.send(
              new MetadataRequestData().setTopics(List.of()).setAllowAutoTopicCreation(false),
              (short) 12);
      return new MetadataResponseData(new ByteBufferAccessor(body), (short) 12).brokers().size();
    }
  }

  private static MetadataResponseData metadata(String broker) throws Exception {
    String[] hostPort = broker.split(":");
    try (RawKafkaClient client = new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]))) {
      ByteBuffer body =
          client.send(
              new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false),
              (short) 12);
      return new MetadataResponseData(new ByteBufferAccessor(body), (short) 12);
    }
  }

  private static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.putAll(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "600000",
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "600000"));
    return Admin.create(props);
  }
}
