package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.EmbeddedBrook;
import java.io.Reader;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster id: generated once by the metadata quorum, kept in {@code meta.properties}, checked
 * at every start (see docs/cluster.md, "Cluster id").
 */
class ClusterIdIT {
  @TempDir Path tmp;

  @Test
  void aRestartedSingleNodeKeepsItsClusterIdAndTopics() throws Exception {
    Path data = tmp.resolve("node");
    try (EmbeddedBrook brook = EmbeddedBrook.builder().dataDir(data).start()) {
      TestClients.createTopic(brook.bootstrapServers(), "orders", 3);
      String first = clusterId(brook);

      brook.restart();

      assertThat(clusterId(brook)).isEqualTo(first);
      assertThat(metaProperties(data).getProperty("cluster.id")).isEqualTo(first);
      try (Admin admin = admin(brook)) {
        assertThat(admin.listTopics().names().get()).contains("orders");
        assertThat(
                admin
                    .describeTopics(List.of("orders"))
                    .allTopicNames()
                    .get()
                    .get("orders")
                    .partitions())
            .hasSize(3);
      }
    }
  }

  @Test
  void twoSingleNodesWithIdenticalConfigsGetDifferentClusterIds() throws Exception {
    try (EmbeddedBrook a = EmbeddedBrook.start();
        EmbeddedBrook b = EmbeddedBrook.start()) {
      String idA = clusterId(a);
      String idB = clusterId(b);

      assertThat(idA).isNotEqualTo(idB);
      // Kafka-style: a random Uuid, in base64.
      assertThat(Uuid.fromString(idA)).isNotEqualTo(Uuid.ZERO_UUID);
      assertThat(metaProperties(a.dataDir()).getProperty("cluster.id")).isEqualTo(idA);
    }
  }

  @Test
  void theMetadataResponseNamesTheClusterId() throws Exception {
    try (EmbeddedBrook brook = EmbeddedBrook.start();
        RawKafkaClient client = new RawKafkaClient("127.0.0.1", brook.port())) {
      short version = 12;
      ByteBuffer body = client.send(new MetadataRequestData().setTopics(null), version);
      MetadataResponseData response =
          new MetadataResponseData(new ByteBufferAccessor(body), version);

      assertThat(response.clusterId()).isEqualTo(clusterId(brook));
    }
  }

  @Test
  void aNodeWhoseMetaPropertiesNamesAnotherClusterRefusesToStart() throws Exception {
    Path data = tmp.resolve("node");
    String original;
    try (EmbeddedBrook brook = EmbeddedBrook.builder().dataDir(data).start()) {
      original = clusterId(brook);
    }
    String other = Uuid.randomUuid().toString();
    Properties props = metaProperties(data);
    props.setProperty("cluster.id", other);
    store(data, props);

    assertThatThrownBy(() -> EmbeddedBrook.builder().dataDir(data).start())
        .hasMessageContaining("cluster.id=" + other)
        .hasMessageContaining(original);
  }

  @Test
  void aPreFormattedClusterIdIsHonoured() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("node"));
    String formatted = Uuid.randomUuid().toString();
    Properties props = new Properties();
    props.setProperty("version", "1");
    props.setProperty("node.id", "1");
    props.setProperty("cluster.id", formatted);
    props.setProperty("directory.id", Uuid.randomUuid().toString());
    store(data, props);

    try (EmbeddedBrook brook = EmbeddedBrook.builder().dataDir(data).start()) {
      assertThat(clusterId(brook)).isEqualTo(formatted);
    }
  }

  @Test
  void theFormerSingleNodeJournalIsRefusedNamingTheDirectory() throws Exception {
    Path data = tmp.resolve("node");
    Path journalDir = Files.createDirectories(data.resolve("__cluster_metadata-0"));
    Files.writeString(journalDir.resolve("metadata.log"), "");

    assertThatThrownBy(() -> EmbeddedBrook.builder().dataDir(data).start())
        .hasMessageContaining(journalDir.toString())
        .hasMessageContaining("Remove " + data);
  }

  private static String clusterId(EmbeddedBrook brook) throws Exception {
    try (Admin admin = admin(brook)) {
      return admin.describeCluster().clusterId().get();
    }
  }

  private static Admin admin(EmbeddedBrook brook) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
    return Admin.create(props);
  }

  private static Properties metaProperties(Path dir) throws Exception {
    Properties props = new Properties();
    try (Reader reader =
        Files.newBufferedReader(dir.resolve("meta.properties"), StandardCharsets.UTF_8)) {
      props.load(reader);
    }
    return props;
  }

  private static void store(Path dir, Properties props) throws Exception {
    try (Writer writer =
        Files.newBufferedWriter(dir.resolve("meta.properties"), StandardCharsets.UTF_8)) {
      props.store(writer, null);
    }
  }
}
