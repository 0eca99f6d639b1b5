package io.brook.tests.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HTTP API of one real broker, spoken with {@link HttpClient} and checked with kafka-clients:
 * records produced over HTTP read by a consumer byte for byte (keys, values, headers; binary, JSON
 * and string formats) and the other way round; a fetch long-polls until a record arrives; bad JSON,
 * unknown topics and oversized bodies get their errors; topics created, listed, described and
 * deleted over HTTP as Admin sees them; group offsets committed over HTTP as Admin lists them;
 * fetches from a time, earliest or latest, tiered records included; idempotent requests written
 * once however often sent; the OpenAPI description parsing and naming every route.
 */
@Timeout(120)
class HttpApiIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final java.nio.file.Path REMOTE = remoteStoreDir();

  /** Under the build's target directory, which a clean build removes. */
  private static java.nio.file.Path remoteStoreDir() {
    try {
      return java.nio.file.Files.createTempDirectory(
              java.nio.file.Files.createDirectories(java.nio.file.Path.of("target")),
              "http-api-it-remote")
          .toAbsolutePath();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("brook.http.listener", "http://127.0.0.1:0")
              .config("brook.http.max.request.bytes", "65536")
              // Tiering for the topics that ask for it (remote.storage.enable), into a directory.
              .config("remote.log.storage.system.enable", "true")
              .config("remote.log.manager.task.interval.ms", "100")
              .config("rsm.config.dir", REMOTE.toString()));

  private static Admin admin;

  @BeforeAll
  static void admin() {
    admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()));
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + BROOK.brook().server().httpPort() + path);
  }

  /** An answer: status and JSON body. */
  record Answer(int status, JsonNode body) {}

  private static Answer send(HttpRequest request) throws Exception {
    HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), JSON.readTree(response.body()));
  }

  static Answer get(String path) throws Exception {
    return send(HttpRequest.newBuilder(uri(path)).GET().build());
  }

  static Answer post(String path, String body) throws Exception {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private static Answer delete(String path) throws Exception {
    return send(HttpRequest.newBuilder(uri(path)).DELETE().build());
  }

  private static String b64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static byte[] random(Random random, int size) {
    byte[] bytes = new byte[size];
    random.nextBytes(bytes);
    return bytes;
  }

  private static void createTopic(String name, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
  }

  private static List<ConsumerRecord<byte[], byte[]>> consume(
      String topic, int partitions, int count) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = TestClients.consumer(BROOK.bootstrapServers())) {
      List<TopicPartition> tps = TestClients.partitions(topic, partitions);
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (read.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(read::add);
      }
    }
    return read;
  }

  @Test
  void binaryRecordsProducedOverHttpAreReadByteForByteByAConsumer() throws Exception {
    createTopic("http-binary", 3);
    Random random = new Random(42);
    byte[][] keys = new byte[20][];
    byte[][] values = new byte[20][];
    byte[][] headerValues = new byte[20][];
    ObjectNode body = JSON.createObjectNode();
    body.put("key_format", "binary").put("value_format", "binary").put("header_format", "binary");
    ArrayNode records = body.putArray("records");
    for (int i = 0; i < keys.length; i++) {
      keys[i] = random(random, 1 + i);
      values[i] = random(random, 100 + 37 * i);
      headerValues[i] = random(random, 5);
      ObjectNode record = records.addObject();
      record.put("key", b64(keys[i])).put("value", b64(values[i]));
      record.putArray("headers").addObject().put("key", "h" + i).put("value", b64(headerValues[i]));
    }
    Answer answer = post("/v1/topics/http-binary/records", body.toString());
    assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);

    List<ConsumerRecord<byte[], byte[]>> read = consume("http-binary", 3, keys.length);
    assertThat(read).hasSize(keys.length);
    for (int i = 0; i < keys.length; i++) {
      JsonNode result = answer.body().get("offsets").get(i);
      int partition = result.get("partition").asInt();
      long offset = result.get("offset").asLong();
      // Kafka's key hashing: the partition a kafka-clients producer would pick.
      assertThat(partition).isEqualTo(Utils.toPositive(Utils.murmur2(keys[i])) % 3);
      ConsumerRecord<byte[], byte[]> record =
          read.stream()
              .filter(r -> r.partition() == partition && r.offset() == offset)
              .findFirst()
              .orElseThrow();
      assertThat(record.key()).isEqualTo(keys[i]);
      assertThat(record.value()).isEqualTo(values[i]);
      Header[] headers = record.headers().toArray();
      assertThat(headers).hasSize(1);
      assertThat(headers[0].key()).isEqualTo("h" + i);
      assertThat(headers[0].value()).isEqualTo(headerValues[i]);
    }
  }

  @Test
  void jsonAndStringRecordsAreStoredAsTheirUtf8TextAndNullsAsNull() throws Exception {
    createTopic("http-json", 1);
    String body =
        """
        {"records": [
          {"key": "user-1", "value": {"name": "Zoë", "n": [1, 2.50, true, null]},
           "headers": [{"key": "trace", "value": "abc"}], "partition": 0, "timestamp": 1234},
          {"key": null, "value": null, "partition": 0}
        ]}
        """;
    Answer answer = post("/v1/topics/http-json/records", body);
    assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
    assertThat(answer.body().get("offsets").get(0).get("offset").asLong()).isZero();
    assertThat(answer.body().get("offsets").get(1).get("offset").asLong()).isEqualTo(1);

    List<ConsumerRecord<byte[], byte[]>> read = consume("http-json", 1, 2);
    assertThat(new String(read.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("user-1");
    assertThat(new String(read.get(0).value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"name\":\"Zoë\",\"n\":[1,2.50,true,null]}");
    assertThat(read.get(0).timestamp()).isEqualTo(1234);
    assertThat(read.get(0).headers().lastHeader("trace").value())
        .isEqualTo("abc".getBytes(StandardCharsets.UTF_8));
    assertThat(read.get(1).key()).isNull();
    assertThat(read.get(1).value()).isNull();

    // And back over HTTP in the same formats.
    Answer fetched = get("/v1/topics/http-json/partitions/0/records?offset=0&max_wait_ms=0");
    assertThat(fetched.status()).isEqualTo(200);
    JsonNode first = fetched.body().get("records").get(0);
    assertThat(first.get("key").asText()).isEqualTo("user-1");
    assertThat(first.get("value").get("name").asText()).isEqualTo("Zoë");
    // The value is embedded as the JSON it is, numbers as written.
    String raw =
        HTTP.send(
                HttpRequest.newBuilder(
                        uri("/v1/topics/http-json/partitions/0/records?offset=0&max_wait_ms=0"))
                    .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
            .body();
    assertThat(raw).contains("\"value\":{\"name\":\"Zoë\",\"n\":[1,2.50,true,null]}");
    assertThat(first.get("headers").get(0).get("value").asText()).isEqualTo("abc");
    assertThat(fetched.body().get("records").get(1).get("value").isNull()).isTrue();
    assertThat(fetched.body().get("next_offset").asLong()).isEqualTo(2);
  }

  @Test
  void recordsProducedByKafkaClientsAreReadByteForByteOverHttp() throws Exception {
    createTopic("http-read", 1);
    Random random = new Random(7);
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sent.add(
          new ProducerRecord<>(
              "http-read",
              0,
              random(random, 8),
              random(random, 50 + i),
              List.<Header>of(new RecordHeader("h", random(random, 3)))));
    }
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(
            BROOK.bootstrapServers(), "compression.type", "lz4", "linger.ms", "5")) {
      List<java.util.concurrent.Future<RecordMetadata>> acks = new ArrayList<>();
      sent.forEach(r -> acks.add(producer.send(r)));
      for (java.util.concurrent.Future<RecordMetadata> ack : acks) {
        ack.get();
      }
    }
    List<JsonNode> fetched = new ArrayList<>();
    long offset = 0;
    while (fetched.size() < sent.size()) {
      Answer answer =
          get(
              "/v1/topics/http-read/partitions/0/records?offset="
                  + offset
                  + "&max_bytes=1024&key_format=binary&value_format=binary&header_format=binary");
      assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
      answer.body().get("records").forEach(fetched::add);
      long next = answer.body().get("next_offset").asLong();
      assertThat(next).isGreaterThan(offset);
      offset = next;
    }
    assertThat(fetched).hasSize(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      JsonNode record = fetched.get(i);
      assertThat(record.get("offset").asLong()).isEqualTo(i);
      assertThat(Base64.getDecoder().decode(record.get("key").asText()))
          .isEqualTo(sent.get(i).key());
      assertThat(Base64.getDecoder().decode(record.get("value").asText()))
          .isEqualTo(sent.get(i).value());
      assertThat(Base64.getDecoder().decode(record.get("headers").get(0).get("value").asText()))
          .isEqualTo(sent.get(i).headers().lastHeader("h").value());
    }
    // Bytes that are not JSON, asked for as JSON, come back as base64 and say so.
    Answer asJson = get("/v1/topics/http-read/partitions/0/records?offset=0&max_wait_ms=0");
    JsonNode first = asJson.body().get("records").get(0);
    assertThat(first.get("value_format").asText()).isEqualTo("binary");
    assertThat(Base64.getDecoder().decode(first.get("value").asText()))
        .isEqualTo(sent.get(0).value());
  }

  @Test
  void aFetchAtTheEndParksUntilARecordArrives() throws Exception {
    createTopic("http-poll", 1);
    TopicPartition tp = new TopicPartition("http-poll", 0);
    Answer empty = get("/v1/topics/http-poll/partitions/0/records?offset=0&max_wait_ms=0");
    assertThat(empty.status()).isEqualTo(200);
    assertThat(empty.body().get("records")).isEmpty();
    assertThat(empty.body().get("next_offset").asLong()).isZero();

    CompletableFuture<HttpResponse<String>> poll =
        HTTP.sendAsync(
            HttpRequest.newBuilder(
                    uri("/v1/topics/http-poll/partitions/0/records?offset=0&max_wait_ms=30000"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    // The fetch is parked as a delayed operation on the partition: no answer yet.
    while (BROOK.brook().server().replicaManager().delayedOperations().waiting(tp) == 0
        && !poll.isDone()) {
      Thread.onSpinWait();
    }
    assertThat(poll).isNotDone();
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      producer
          .send(new ProducerRecord<>("http-poll", "\"hello\"".getBytes(StandardCharsets.UTF_8)))
          .get();
    }
    JsonNode answer = JSON.readTree(poll.get().body());
    assertThat(poll.get().statusCode()).isEqualTo(200);
    assertThat(answer.get("records")).hasSize(1);
    assertThat(answer.get("records").get(0).get("value").asText()).isEqualTo("hello");
    assertThat(answer.get("high_watermark").asLong()).isEqualTo(1);
  }

  @Test
  void badRequestsGetKafkaErrorsWithFittingStatuses() throws Exception {
    createTopic("http-errors", 1);
    Answer badJson = post("/v1/topics/http-errors/records", "{\"records\": [");
    assertThat(badJson.status()).isEqualTo(400);
    assertThat(badJson.body().get("error").asText()).isEqualTo("INVALID_REQUEST");
    assertThat(badJson.body().get("error_code").asInt()).isEqualTo(42);
    assertThat(badJson.body().get("message").asText()).contains("not valid JSON");

    Answer badBase64 =
        post(
            "/v1/topics/http-errors/records",
            "{\"value_format\":\"binary\",\"records\":[{\"value\":\"***\"}]}");
    assertThat(badBase64.status()).isEqualTo(400);
    assertThat(badBase64.body().get("message").asText()).contains("records[0].value", "base64");

    Answer unknownProduce =
        post("/v1/topics/no-such-topic/records", "{\"records\":[{\"value\":1}]}");
    assertThat(unknownProduce.status()).isEqualTo(404);
    assertThat(unknownProduce.body().get("error").asText()).isEqualTo("UNKNOWN_TOPIC_OR_PARTITION");
    assertThat(unknownProduce.body().get("error_code").asInt()).isEqualTo(3);
    assertThat(get("/v1/topics/no-such-topic").status()).isEqualTo(404);
    Answer unknownFetch = get("/v1/topics/no-such-topic/partitions/0/records?offset=0");
    assertThat(unknownFetch.status()).isEqualTo(404);
    assertThat(unknownFetch.body().get("error").asText()).isEqualTo("UNKNOWN_TOPIC_OR_PARTITION");
    assertThat(get("/v1/topics/http-errors/partitions/5/records?offset=0").status()).isEqualTo(404);

    Answer outOfRange = get("/v1/topics/http-errors/partitions/0/records?offset=99");
    assertThat(outOfRange.body().get("error").asText()).isEqualTo("OFFSET_OUT_OF_RANGE");
    assertThat(outOfRange.status()).isEqualTo(400);

    Answer tooLarge =
        post(
            "/v1/topics/http-errors/records",
            "{\"records\":[{\"value\":\"" + "x".repeat(70_000) + "\"}]}");
    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(tooLarge.body().get("message").asText()).contains("brook.http.max.request.bytes");

    Answer noRoute = get("/v1/nothing-here");
    assertThat(noRoute.status()).isEqualTo(404);
    assertThat(get("/v1/topics/http-errors/partitions/0/records").status()).isEqualTo(400);
    // After all that the connection pool and the broker still serve.
    assertThat(post("/v1/topics/http-errors/records", "{\"records\":[{\"value\":1}]}").status())
        .isEqualTo(200);
  }

  @Test
  void topicsCreatedListedDescribedAndDeletedOverHttpAsAdminSeesThem() throws Exception {
    Answer created =
        post(
            "/v1/topics",
            "{\"name\":\"http-admin\",\"partitions\":4,\"replication_factor\":1,"
                + "\"configs\":{\"retention.ms\":\"3600000\",\"cleanup.policy\":\"compact\"}}");
    assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
    assertThat(created.body().get("partitions").asInt()).isEqualTo(4);

    TopicDescription description =
        admin.describeTopics(List.of("http-admin")).allTopicNames().get().get("http-admin");
    assertThat(description.partitions()).hasSize(4);
    assertThat(description.topicId().toString()).isEqualTo(created.body().get("topic_id").asText());
    var configs =
        admin
            .describeConfigs(
                List.of(
                    new org.apache.kafka.common.config.ConfigResource(
                        org.apache.kafka.common.config.ConfigResource.Type.TOPIC, "http-admin")))
            .all()
            .get()
            .values()
            .iterator()
            .next();
    assertThat(configs.get("retention.ms").value()).isEqualTo("3600000");

    Answer again = post("/v1/topics", "{\"name\":\"http-admin\",\"partitions\":1}");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().get("error").asText()).isEqualTo("TOPIC_ALREADY_EXISTS");

    createTopic("http-admin-by-kafka", 2);
    Answer list = get("/v1/topics");
    Set<String> listed = new java.util.HashSet<>();
    list.body().get("topics").forEach(t -> listed.add(t.get("name").asText()));
    assertThat(listed).contains("http-admin", "http-admin-by-kafka");

    Answer described = get("/v1/topics/http-admin");
    assertThat(described.status()).isEqualTo(200);
    assertThat(described.body().get("partitions")).hasSize(4);
    JsonNode p0 = described.body().get("partitions").get(0);
    assertThat(p0.get("leader").asInt()).isEqualTo(BROOK.brook().server().nodeId());
    assertThat(p0.get("isr")).hasSize(1);
    assertThat(described.body().get("configs").get("cleanup.policy").asText()).isEqualTo("compact");

    Answer metadata = get("/v1/metadata");
    assertThat(metadata.body().get("brokers")).hasSize(1);
    assertThat(metadata.body().get("controller_id").asInt())
        .isEqualTo(BROOK.brook().server().nodeId());
    assertThat(metadata.body().get("topics").findValuesAsText("name")).contains("http-admin");

    assertThat(delete("/v1/topics/http-admin").status()).isEqualTo(200);
    assertThat(admin.listTopics().names().get()).doesNotContain("http-admin");
    assertThat(get("/v1/topics/http-admin").status()).isEqualTo(404);
    assertThat(delete("/v1/topics/http-admin").status()).isEqualTo(404);
  }

  @Test
  void groupOffsetsCommittedOverHttpAreListedByAdminAndBack() throws Exception {
    createTopic("http-offsets", 2);
    Answer committed =
        post(
            "/v1/groups/http-group/offsets",
            "{\"offsets\":[{\"topic\":\"http-offsets\",\"partition\":0,\"offset\":5,"
                + "\"metadata\":\"m\"},{\"topic\":\"http-offsets\",\"partition\":1,\"offset\":7}]}");
    assertThat(committed.status()).as(committed.body().toString()).isEqualTo(200);
    assertThat(committed.body().get("offsets").findValues("error")).isEmpty();

    Map<TopicPartition, OffsetAndMetadata> listed =
        admin.listConsumerGroupOffsets("http-group").partitionsToOffsetAndMetadata().get();
    assertThat(listed)
        .containsEntry(new TopicPartition("http-offsets", 0), new OffsetAndMetadata(5, "m"))
        .containsEntry(new TopicPartition("http-offsets", 1), new OffsetAndMetadata(7, ""));

    admin
        .alterConsumerGroupOffsets(
            "http-group", Map.of(new TopicPartition("http-offsets", 1), new OffsetAndMetadata(9)))
        .all()
        .get();
    Answer fetched = get("/v1/groups/http-group/offsets");
    assertThat(fetched.status()).isEqualTo(200);
    Map<Integer, Long> offsets =
        java.util.stream.StreamSupport.stream(fetched.body().get("offsets").spliterator(), false)
            .collect(
                Collectors.toMap(o -> o.get("partition").asInt(), o -> o.get("offset").asLong()));
    assertThat(offsets).containsEntry(0, 5L).containsEntry(1, 9L);

    Answer badCommit = post("/v1/groups/http-group/offsets", "{\"offsets\":[{\"topic\":\"x\"}]}");
    assertThat(badCommit.status()).isEqualTo(400);
  }

  @Test
  void readCommittedSkipsAbortedTransactionsAndAcksZeroAndOneAreServed() throws Exception {
    createTopic("http-txn", 1);
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "transactional.id", "http-txn")) {
      producer.initTransactions();
      for (String outcome : List.of("committed-1", "aborted", "committed-2")) {
        producer.beginTransaction();
        producer
            .send(
                new ProducerRecord<>(
                    "http-txn", ("\"" + outcome + "\"").getBytes(StandardCharsets.UTF_8)))
            .get();
        if (outcome.equals("aborted")) {
          producer.abortTransaction();
        } else {
          producer.commitTransaction();
        }
      }
    }
    Answer acks0 =
        post("/v1/topics/http-txn/records", "{\"acks\":0,\"records\":[{\"value\":\"a0\"}]}");
    assertThat(acks0.status()).isEqualTo(200);
    assertThat(acks0.body().get("offsets").get(0).has("offset")).isFalse();
    Answer acks1 =
        post("/v1/topics/http-txn/records", "{\"acks\":1,\"records\":[{\"value\":\"a1\"}]}");
    assertThat(acks1.status()).isEqualTo(200);
    // Three transactional records and three markers, then acks=0's record: acks=1's is at 7.
    assertThat(acks1.body().get("offsets").get(0).get("offset").asLong()).isEqualTo(7);

    Answer committed =
        get(
            "/v1/topics/http-txn/partitions/0/records?offset=0&max_wait_ms=0&isolation=read_committed");
    assertThat(committed.status()).as(committed.body().toString()).isEqualTo(200);
    assertThat(committed.body().get("records").findValuesAsText("value"))
        .containsExactly("committed-1", "committed-2", "a0", "a1");
    Answer all = get("/v1/topics/http-txn/partitions/0/records?offset=0&max_wait_ms=0");
    assertThat(all.body().get("records").findValuesAsText("value"))
        .containsExactly("committed-1", "aborted", "committed-2", "a0", "a1");
    assertThat(all.body().get("next_offset").asLong()).isEqualTo(8);
  }

  /** The status codes of the HTTP/1.1 answers in {@code answers}, in order. */
  private static List<String> statuses(String answers) {
    List<String> statuses = new ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("HTTP/1\\.1 (\\d{3})").matcher(answers);
    while (m.find()) {
      statuses.add(m.group(1));
    }
    return statuses;
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderBehindAParkedFetch() throws Exception {
    createTopic("http-pipe", 1);
    String requests =
        "GET /v1/topics/http-pipe/partitions/0/records?offset=0&max_wait_ms=300 HTTP/1.1\r\n"
            + "Host: brook\r\n\r\n"
            + "GET /v1/nothing HTTP/1.1\r\nHost: brook\r\n\r\n"
            + "GET /v1/topics/%zz HTTP/1.1\r\nHost: brook\r\n\r\n"
            + "GET /v1/topics HTTP/1.1\r\nHost: brook\r\nConnection: close\r\n\r\n";
    String answers;
    try (java.net.Socket socket =
        new java.net.Socket("127.0.0.1", BROOK.brook().server().httpPort())) {
      socket.getOutputStream().write(requests.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> statuses = statuses(answers);
    // The parked fetch answers first (empty), then the others in the order sent.
    assertThat(statuses).containsExactly("200", "404", "400", "200");
    assertThat(answers).contains("\"records\":[]", "malformed path");
  }

  @Test
  void anOversizedBodyIsRefusedInOrderAndTheRefusalIsReadWhileTheBodyIsStillSent()
      throws Exception {
    createTopic("http-big", 1);
    int bodySize = 1 << 20;
    String requests =
        "GET /v1/topics/http-big/partitions/0/records?offset=0&max_wait_ms=300 HTTP/1.1\r\n"
            + "Host: brook\r\n\r\n"
            + "POST /v1/topics/http-big/records HTTP/1.1\r\nHost: brook\r\n"
            + "Content-Type: application/json\r\nContent-Length: "
            + bodySize
            + "\r\n\r\n";
    String answers;
    try (java.net.Socket socket =
        new java.net.Socket("127.0.0.1", BROOK.brook().server().httpPort())) {
      java.io.OutputStream out = socket.getOutputStream();
      out.write(requests.getBytes(StandardCharsets.US_ASCII));
      // The whole body, sent after the refusal is on its way: the broker reads and discards it
      // rather than resetting the connection under the client's feet.
      byte[] chunk = new byte[16 * 1024];
      java.util.Arrays.fill(chunk, (byte) 'x');
      for (int sent = 0; sent < bodySize; sent += chunk.length) {
        out.write(chunk);
      }
      out.flush();
      socket.shutdownOutput();
      answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> statuses = statuses(answers);
    assertThat(statuses).containsExactly("200", "413");
    String refusal = answers.substring(answers.lastIndexOf("HTTP/1.1 413"));
    assertThat(refusal.toLowerCase(java.util.Locale.ROOT))
        .contains("connection: close", "content-length: ");
    assertThat(refusal).endsWith("}").contains("brook.http.max.request.bytes (65536 bytes)");
    // Nothing of the refused body was written.
    Answer written = get("/v1/topics/http-big/partitions/0/records?offset=0&max_wait_ms=0");
    assertThat(written.body().get("records")).isEmpty();
  }

  @Test
  void fetchesStartAtATimeOrAtEarliestOrLatestAsListOffsetsResolvesThem() throws Exception {
    createTopic("http-time", 1);
    Answer produced =
        post(
            "/v1/topics/http-time/records",
            """
            {"records": [
              {"value": "t1000", "partition": 0, "timestamp": 1000},
              {"value": "t2000", "partition": 0, "timestamp": 2000},
              {"value": "t3000", "partition": 0, "timestamp": 3000},
              {"value": "t4000", "partition": 0, "timestamp": 4000}
            ]}
            """);
    assertThat(produced.status()).as(produced.body().toString()).isEqualTo(200);
    String at = "/v1/topics/http-time/partitions/0/records?max_wait_ms=0&";

    // The first record at or after the time, as ListOffsets (offsetsForTimes) finds it.
    Answer from2500 = get(at + "timestamp=2500");
    assertThat(from2500.status()).as(from2500.body().toString()).isEqualTo(200);
    assertThat(from2500.body().get("records").findValuesAsText("value"))
        .containsExactly("t3000", "t4000");
    assertThat(from2500.body().get("records").get(0).get("offset").asLong()).isEqualTo(2);
    assertThat(get(at + "timestamp=2000").body().get("records").get(0).get("offset").asLong())
        .isEqualTo(1);
    assertThat(get(at + "timestamp=0").body().get("records").findValuesAsText("value"))
        .containsExactly("t1000", "t2000", "t3000", "t4000");
    // After the last record: the fetch starts at the end and waits there.
    Answer future = get(at + "timestamp=5000");
    assertThat(future.status()).isEqualTo(200);
    assertThat(future.body().get("records")).isEmpty();
    assertThat(future.body().get("next_offset").asLong()).isEqualTo(4);

    Answer latest = get(at + "offset=latest");
    assertThat(latest.body().get("records")).isEmpty();
    assertThat(latest.body().get("next_offset").asLong()).isEqualTo(4);
    // Earliest follows the log start offset once records are deleted.
    admin
        .deleteRecords(
            Map.of(
                new TopicPartition("http-time", 0),
                org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(2)))
        .all()
        .get();
    Answer earliest = get(at + "offset=earliest");
    assertThat(earliest.status()).as(earliest.body().toString()).isEqualTo(200);
    assertThat(earliest.body().get("records").findValuesAsText("value"))
        .containsExactly("t3000", "t4000");
    assertThat(get(at + "timestamp=1000").body().get("records").get(0).get("offset").asLong())
        .isEqualTo(2);

    assertThat(get(at + "offset=0&timestamp=1000").status()).isEqualTo(400);
    assertThat(get(at + "offset=oldest").status()).isEqualTo(400);
    assertThat(get(at + "timestamp=-5").status()).isEqualTo(400);
  }

  @Test
  void anIdempotentRequestSentTwiceWritesOnceAndASequenceGapIsRefused() throws Exception {
    createTopic("http-idem", 2);
    Answer producer = post("/v1/producers", "");
    assertThat(producer.status()).as(producer.body().toString()).isEqualTo(201);
    long id = producer.body().get("id").asLong();
    int epoch = producer.body().get("epoch").asInt();
    String first =
        "{\"producer\": {\"id\": "
            + id
            + ", \"epoch\": "
            + epoch
            + ", \"sequence\": 0}, \"records\": [{\"value\": \"a\", \"partition\": 1},"
            + " {\"value\": \"b\", \"partition\": 1}]}";
    Answer written = post("/v1/topics/http-idem/records", first);
    assertThat(written.status()).as(written.body().toString()).isEqualTo(200);
    assertThat(written.body().get("offsets").findValuesAsText("offset")).containsExactly("0", "1");
    // The same request again (a client retrying after a lost answer): the same offsets, no write.
    Answer retried = post("/v1/topics/http-idem/records", first);
    assertThat(retried.status()).as(retried.body().toString()).isEqualTo(200);
    assertThat(retried.body().get("offsets").findValuesAsText("offset")).containsExactly("0", "1");

    Answer gap =
        post("/v1/topics/http-idem/records", first.replace("\"sequence\": 0", "\"sequence\": 5"));
    assertThat(gap.status()).as(gap.body().toString()).isEqualTo(400);
    assertThat(gap.body().get("error").asText()).isEqualTo("OUT_OF_ORDER_SEQUENCE_NUMBER");
    assertThat(gap.body().get("error_code").asInt()).isEqualTo(45);
    Answer next =
        post("/v1/topics/http-idem/records", first.replace("\"sequence\": 0", "\"sequence\": 2"));
    assertThat(next.status()).as(next.body().toString()).isEqualTo(200);
    assertThat(next.body().get("offsets").findValuesAsText("offset")).containsExactly("2", "3");

    List<ConsumerRecord<byte[], byte[]>> read = consume("http-idem", 2, 4);
    assertThat(read).hasSize(4);
    assertThat(
            read.stream()
                .map(r -> new String(r.value(), StandardCharsets.UTF_8))
                .collect(Collectors.toList()))
        .containsExactly("\"a\"", "\"b\"", "\"a\"", "\"b\"");

    // A keyless record without a partition would land anywhere on a retry: refused.
    String atFour = "\"producer\": {\"id\": " + id + ", \"epoch\": " + epoch + ", \"sequence\": 4}";
    Answer unplaced =
        post("/v1/topics/http-idem/records", "{" + atFour + ", \"records\": [{\"value\": 1}]}");
    assertThat(unplaced.status()).isEqualTo(400);
    assertThat(unplaced.body().get("message").asText()).contains("one partition");
    Answer acks1 =
        post(
            "/v1/topics/http-idem/records",
            "{\"acks\": 1, " + atFour + ", \"records\": [{\"value\": 1, \"partition\": 1}]}");
    assertThat(acks1.status()).isEqualTo(400);
  }

  @Test
  void theOpenApiDescriptionParsesAndDescribesEveryRoute() throws Exception {
    JsonNode spec =
        new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
            .readTree(java.nio.file.Path.of("..", "docs", "http-api.yaml").toFile());
    assertThat(spec.get("openapi").asText()).startsWith("3.");
    List<String> paths = new ArrayList<>();
    spec.get("paths").fieldNames().forEachRemaining(paths::add);
    assertThat(paths)
        .contains(
            "/v1/metadata",
            "/v1/topics",
            "/v1/topics/{topic}",
            "/v1/topics/{topic}/records",
            "/v1/producers",
            "/v1/topics/{topic}/partitions/{partition}/records",
            "/v1/groups/{group}/offsets");
    List<String> fetchParameters =
        spec.get("paths")
            .get("/v1/topics/{topic}/partitions/{partition}/records")
            .get("get")
            .get("parameters")
            .findValuesAsText("name");
    assertThat(fetchParameters).contains("offset", "timestamp");
    assertThat(spec.at("/components/schemas/ProduceRequest/properties/producer").isObject())
        .isTrue();
  }

  @Test
  void aFetchByTimeOrFromEarliestReadsTieredRecords() throws Exception {
    TestClients.createTopic(
        BROOK.bootstrapServers(),
        "http-tiered",
        1,
        Map.of(
            "remote.storage.enable", "true",
            "local.retention.ms", "1000",
            "retention.ms", "-1",
            "segment.bytes", "1048576"));
    long base = 1_700_000_000_000L;
    int count = 600;
    byte[] filler = new byte[4096];
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < count; i++) {
        String value = "{\"n\":" + i + ",\"pad\":\"" + b64(filler) + "\"}";
        producer.send(
            new ProducerRecord<>(
                "http-tiered", 0, base + i, null, value.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    // The full segments go to the remote store and leave the disk.
    TopicPartition tp = new TopicPartition("http-tiered", 0);
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                admin
                        .listOffsets(
                            Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.earliestLocal()))
                        .all()
                        .get()
                        .get(tp)
                        .offset()
                    > 100);
    String at = "/v1/topics/http-tiered/partitions/0/records?max_wait_ms=0&max_bytes=10000&";
    Answer byTime = get(at + "timestamp=" + (base + 10));
    assertThat(byTime.status()).as(byTime.body().toString()).isEqualTo(200);
    JsonNode first = byTime.body().get("records").get(0);
    assertThat(first.get("offset").asLong()).isEqualTo(10);
    assertThat(first.get("timestamp").asLong()).isEqualTo(base + 10);
    assertThat(first.get("value").get("n").asInt()).isEqualTo(10);
    Answer earliest = get(at + "offset=earliest");
    assertThat(earliest.status()).as(earliest.body().toString()).isEqualTo(200);
    assertThat(earliest.body().get("records").get(0).get("offset").asLong()).isZero();
    assertThat(earliest.body().get("log_start_offset").asLong()).isZero();
  }
}
