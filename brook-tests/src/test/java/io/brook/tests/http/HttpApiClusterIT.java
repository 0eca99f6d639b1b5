package io.brook.tests.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testports.PortAllocator;
import io.brook.tests.cluster.ClusterHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API of every node of a three-node process cluster serves every partition and group:
 * produces, fetches (from an offset, a time, earliest), idempotent retries and group offsets sent
 * to a node that neither leads the partition nor coordinates the group are forwarded to the one
 * that does, over the inter-broker listener, and answered as that node answers.
 */
@Timeout(180)
class HttpApiClusterIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String TOPIC = "everywhere";
  private static final int PARTITIONS = 3;

  @TempDir static Path dir;
  private static ClusterHarness cluster;
  private static final Map<Integer, Integer> HTTP_PORTS = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    for (int id = 1; id <= 3; id++) {
      HTTP_PORTS.put(id, PortAllocator.shared().allocate());
    }
    cluster =
        ClusterHarness.start(
            dir,
            3,
            Map.of(),
            id -> Map.of("brook.http.listener", "http://127.0.0.1:" + HTTP_PORTS.get(id)));
    try (Admin admin = admin()) {
      // One replica each: two nodes of three hold no copy of a partition, so they must forward.
      admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
    }
    for (int id : HTTP_PORTS.keySet()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(id, "/v1/topics/" + TOPIC).status() == 200);
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
  }

  record Answer(int status, JsonNode body) {}

  private static Answer send(HttpRequest request) throws Exception {
    HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), JSON.readTree(response.body()));
  }

  private static URI uri(int node, String path) {
    return URI.create("http://127.0.0.1:" + HTTP_PORTS.get(node) + path);
  }

  static Answer get(int node, String path) throws Exception {
    return send(HttpRequest.newBuilder(uri(node, path)).GET().build());
  }

  static Answer post(int node, String path, String body) throws Exception {
    return send(
        HttpRequest.newBuilder(uri(node, path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  @Test
  void everyNodeProducesAndFetchesEveryPartition() throws Exception {
    // Node n writes one record to every partition, with the time n * 1000.
    Map<Integer, List<String>> written = new HashMap<>();
    for (int node = 1; node <= 3; node++) {
      for (int p = 0; p < PARTITIONS; p++) {
        String value = "node-" + node + "-partition-" + p;
        Answer produced =
            post(
                node,
                "/v1/topics/" + TOPIC + "/records",
                "{\"records\": [{\"value\": \""
                    + value
                    + "\", \"partition\": "
                    + p
                    + ", \"timestamp\": "
                    + node * 1000
                    + "}]}");
        assertThat(produced.status()).as("node %d: %s", node, produced.body()).isEqualTo(200);
        assertThat(produced.body().get("offsets").get(0).get("offset").asLong())
            .isEqualTo(node - 1);
        written.computeIfAbsent(p, x -> new ArrayList<>()).add(value);
      }
    }
    for (int node = 1; node <= 3; node++) {
      for (int p = 0; p < PARTITIONS; p++) {
        String records = "/v1/topics/" + TOPIC + "/partitions/" + p + "/records?max_wait_ms=0&";
        Answer all = get(node, records + "offset=0");
        assertThat(all.status()).as("node %d: %s", node, all.body()).isEqualTo(200);
        assertThat(all.body().get("records").findValuesAsText("value"))
            .as("partition %d through node %d", p, node)
            .containsExactlyElementsOf(written.get(p));
        assertThat(get(node, records + "offset=earliest").body().get("records")).hasSize(3);
        // ListOffsets by time at the leader: from node 2's record on.
        Answer fromTime = get(node, records + "timestamp=1500");
        assertThat(fromTime.status()).as(fromTime.body().toString()).isEqualTo(200);
        assertThat(fromTime.body().get("records").findValuesAsText("value"))
            .containsExactlyElementsOf(written.get(p).subList(1, 3));
        Answer end = get(node, records + "offset=latest");
        assertThat(end.body().get("next_offset").asLong()).isEqualTo(3);
      }
    }
  }

  @Test
  void anIdempotentRetryThroughAnotherNodeWritesOnce() throws Exception {
    String topic = "idempotent-everywhere";
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      int leader =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get()
              .get(topic)
              .partitions()
              .get(0)
              .leader()
              .id();
      int other = leader % 3 + 1;
      int third = other % 3 + 1;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  get(other, "/v1/topics/" + topic).status() == 200
                      && get(third, "/v1/topics/" + topic).status() == 200);
      Answer producer = post(other, "/v1/producers", "");
      assertThat(producer.status()).as(producer.body().toString()).isEqualTo(201);
      String body =
          "{\"producer\": {\"id\": "
              + producer.body().get("id").asLong()
              + ", \"epoch\": "
              + producer.body().get("epoch").asInt()
              + ", \"sequence\": 0}, \"records\": [{\"value\": 1, \"partition\": 0}]}";
      // Sent to a node that does not lead the partition, then retried through another.
      assertThat(post(other, "/v1/topics/" + topic + "/records", body).status()).isEqualTo(200);
      Answer retried = post(third, "/v1/topics/" + topic + "/records", body);
      assertThat(retried.status()).as(retried.body().toString()).isEqualTo(200);
      assertThat(retried.body().get("offsets").get(0).get("offset").asLong()).isZero();
      Map<TopicPartition, org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>
          end =
              admin
                  .listOffsets(
                      Map.of(
                          new TopicPartition(topic, 0),
                          org.apache.kafka.clients.admin.OffsetSpec.latest()))
                  .all()
                  .get();
      assertThat(end.get(new TopicPartition(topic, 0)).offset()).isEqualTo(1);
      Answer gap =
          post(
              leader % 3 + 1,
              "/v1/topics/" + topic + "/records",
              body.replace("\"sequence\": 0", "\"sequence\": 3"));
      assertThat(gap.body().get("error_code").asInt()).as(gap.body().toString()).isEqualTo(45);
    }
  }

  @Test
  void groupOffsetsAreCommittedAndReadThroughEveryNode() throws Exception {
    for (int node = 1; node <= 3; node++) {
      String group = "http-group-" + node;
      Answer committed =
          post(
              node,
              "/v1/groups/" + group + "/offsets",
              "{\"offsets\": [{\"topic\": \""
                  + TOPIC
                  + "\", \"partition\": 1, \"offset\": "
                  + node
                  + ", \"metadata\": \"via "
                  + node
                  + "\"}]}");
      assertThat(committed.status()).as("node %d: %s", node, committed.body()).isEqualTo(200);
      assertThat(committed.body().get("offsets").get(0).has("error")).isFalse();
      for (int reader = 1; reader <= 3; reader++) {
        Answer read = get(reader, "/v1/groups/" + group + "/offsets");
        assertThat(read.status()).as("node %d: %s", reader, read.body()).isEqualTo(200);
        assertThat(read.body().get("offsets").get(0).get("offset").asLong()).isEqualTo(node);
        assertThat(read.body().get("offsets").get(0).get("metadata").asText())
            .isEqualTo("via " + node);
      }
      try (Admin admin = admin()) {
        Map<TopicPartition, OffsetAndMetadata> listed =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        assertThat(listed.get(new TopicPartition(TOPIC, 1)).offset()).isEqualTo(node);
      }
    }
  }
}
