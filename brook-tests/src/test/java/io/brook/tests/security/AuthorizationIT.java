package io.brook.tests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.DeleteConsumerGroupsResult;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ACLs enforced on real kafka-clients over PLAINTEXT, where every connection is {@code
 * User:ANONYMOUS}: with {@code allow.everyone.if.no.acl.found=true}, ACLs on a resource take it
 * away from everyone they do not allow. When SASL gives connections their own principals, the same
 * scenarios can run with distinct users instead of ACLs on ANONYMOUS.
 */
@Timeout(180)
class AuthorizationIT {
  private static final String AUTHORIZER =
      "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
  private static final String ANONYMOUS = "User:ANONYMOUS";

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("authorizer.class.name", AUTHORIZER)
              .config("allow.everyone.if.no.acl.found", "true"));

  /** ANONYMOUS may administer the cluster but not act as a broker (no CLUSTER_ACTION). */
  @BeforeAll
  static void acls() throws Exception {
    List<AclBinding> acls = new ArrayList<>(administerButNotClusterAction());
    // "guarded": readable (and so describable), not writable.
    acls.add(allow(ResourceType.TOPIC, "guarded", ANONYMOUS, AclOperation.READ));
    acls.add(
        new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, "guarded", PatternType.LITERAL),
            new AccessControlEntry(ANONYMOUS, "*", AclOperation.WRITE, AclPermissionType.DENY)));
    // "hidden": someone else's; so are the group "locked" and the transactional id "tx-locked".
    acls.add(allow(ResourceType.TOPIC, "hidden", "User:someone-else", AclOperation.ALL));
    acls.add(allow(ResourceType.GROUP, "locked", "User:someone-else", AclOperation.ALL));
    acls.add(
        allow(ResourceType.TRANSACTIONAL_ID, "tx-locked", "User:someone-else", AclOperation.ALL));
    try (Admin admin = admin(BROOK.bootstrapServers())) {
      admin.createAcls(acls).all().get();
      admin
          .createTopics(
              List.of(
                  new NewTopic("guarded", 1, (short) 1),
                  new NewTopic("hidden", 1, (short) 1),
                  new NewTopic("open", 1, (short) 1)))
          .all()
          .get();
      assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get())
          .containsExactlyInAnyOrderElementsOf(acls);
    }
  }

  @Test
  void aPrincipalWithoutWriteGetsTopicAuthorizationFailedAndTheTopicStoresNothing()
      throws Exception {
    // When a producer writes to the topic it may read but not write
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "retries", "0")) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("guarded", new byte[1])).get())
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TopicAuthorizationException.class);
      // while the open topic takes writes on the same connection
      producer.send(new ProducerRecord<>("open", new byte[1])).get();
    }
    // and a raw Produce, straight to the partition, is refused too
    try (RawKafkaClient raw = raw()) {
      ByteBuffer batch =
          MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[] {1})).buffer();
      assertThat(raw.produce("guarded", topicId("guarded"), (short) 1, batch).errorCode())
          .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }

    // Then the topic holds nothing
    assertThat(TestClients.endOffsets(BROOK.bootstrapServers(), "guarded", 1))
        .isEqualTo(Map.of(new TopicPartition("guarded", 0), 0L));
  }

  @Test
  void topicsThePrincipalMayNotDescribeAreInvisibleInMetadata() throws Exception {
    try (Admin admin = admin(BROOK.bootstrapServers())) {
      assertThat(admin.listTopics().names().get())
          .contains("guarded", "open")
          .doesNotContain("hidden");
      assertThatThrownBy(() -> admin.describeTopics(List.of("hidden")).allTopicNames().get())
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
  }

  @Test
  void aClientSendingAFollowerFetchIsRefused() throws Exception {
    try (RawKafkaClient raw = raw()) {
      // Up to v14 the replica id is a header field of the request, from v15 in ReplicaState.
      for (short version : new short[] {12, ApiKeys.FETCH.latestVersion()}) {
        FetchRequestData fetch =
            new FetchRequestData()
                .setMaxWaitMs(0)
                .setMinBytes(0)
                .setMaxBytes(1 << 20)
                .setSessionEpoch(-1);
        if (version < 15) {
          fetch.setReplicaId(1);
        } else {
          fetch.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(1));
        }
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic("open");
        if (version >= 13) {
          topic.setTopicId(topicId("open"));
        }
        topic
            .partitions()
            .add(
                new FetchRequestData.FetchPartition()
                    .setPartition(0)
                    .setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 20));
        fetch.topics().add(topic);

        FetchResponseData response =
            new FetchResponseData(new ByteBufferAccessor(raw.send(fetch, version)), version);

        assertThat(response.responses().get(0).partitions().get(0).errorCode())
            .as("fetch v%d", version)
            .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
      }
    }
  }

  @Test
  void aClientSendingWriteTxnMarkersIsRefusedAndNothingIsWritten() throws Exception {
    Map<TopicPartition, Long> before = TestClients.endOffsets(BROOK.bootstrapServers(), "open", 1);
    short version = ApiKeys.WRITE_TXN_MARKERS.latestVersion();
    WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
    WriteTxnMarkersRequestData.WritableTxnMarker marker =
        new WriteTxnMarkersRequestData.WritableTxnMarker()
            .setProducerId(4711)
            .setProducerEpoch((short) 0)
            .setTransactionResult(true)
            .setCoordinatorEpoch(0);
    marker
        .topics()
        .add(
            new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                .setName("open")
                .setPartitionIndexes(List.of(0)));
    request.markers().add(marker);

    try (RawKafkaClient raw = raw()) {
      WriteTxnMarkersResponseData response =
          new WriteTxnMarkersResponseData(
              new ByteBufferAccessor(raw.send(request, version)), version);
      assertThat(response.markers().get(0).topics().get(0).partitions().get(0).errorCode())
          .isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
    }
    assertThat(TestClients.endOffsets(BROOK.bootstrapServers(), "open", 1)).isEqualTo(before);
  }

  @Test
  void groupAndTransactionalIdApisAreRefusedWithoutTheirAcls() {
    // A consumer of a group it may not use fails at FindCoordinator (DESCRIBE on the group)
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(BROOK.bootstrapServers(), "group.id", "locked")) {
      consumer.subscribe(List.of("open"));
      assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
          .isInstanceOf(GroupAuthorizationException.class);
    }
    // and a transactional producer whose id is someone else's cannot start
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(
            BROOK.bootstrapServers(), "transactional.id", "tx-locked", "max.block.ms", "10000")) {
      assertThatThrownBy(producer::initTransactions)
          .isInstanceOf(TransactionalIdAuthorizationException.class);
    }
  }

  @Test
  void requestsNamingSeveralGroupsOrTopicsAreAnsweredPerEntry() throws Exception {
    TopicPartition open = new TopicPartition("open", 0);
    TopicPartition hidden = new TopicPartition("hidden", 0);
    try (Admin admin = admin(BROOK.bootstrapServers())) {
      // An OffsetCommit naming a topic the principal may read and one it may not
      AlterConsumerGroupOffsetsResult commit =
          admin.alterConsumerGroupOffsets(
              "mine", Map.of(open, new OffsetAndMetadata(1), hidden, new OffsetAndMetadata(1)));
      commit.partitionResult(open).get();
      assertThatThrownBy(() -> commit.partitionResult(hidden).get())
          .hasCauseInstanceOf(TopicAuthorizationException.class);

      // Batched FindCoordinator and DescribeGroups / ConsumerGroupDescribe for two groups
      DescribeConsumerGroupsResult described =
          admin.describeConsumerGroups(List.of("mine", "locked"));
      assertThat(described.describedGroups().get("mine").get().groupId()).isEqualTo("mine");
      assertThatThrownBy(() -> described.describedGroups().get("locked").get())
          .hasCauseInstanceOf(GroupAuthorizationException.class);

      // A batched OffsetFetch for the two groups
      ListConsumerGroupOffsetsResult offsets =
          admin.listConsumerGroupOffsets(
              Map.of(
                  "mine", new ListConsumerGroupOffsetsSpec(),
                  "locked", new ListConsumerGroupOffsetsSpec()));
      assertThat(offsets.partitionsToOffsetAndMetadata("mine").get())
          .isEqualTo(Map.of(open, new OffsetAndMetadata(1)));
      assertThatThrownBy(() -> offsets.partitionsToOffsetAndMetadata("locked").get())
          .hasCauseInstanceOf(GroupAuthorizationException.class);

      // DeleteGroups for the two groups
      DeleteConsumerGroupsResult deleted = admin.deleteConsumerGroups(List.of("mine", "locked"));
      deleted.deletedGroups().get("mine").get();
      assertThatThrownBy(() -> deleted.deletedGroups().get("locked").get())
          .hasCauseInstanceOf(GroupAuthorizationException.class);
    }
  }

  @Test
  void withoutAclsAndWithoutAllowEveryoneOnlySuperUsersMayDoAnything() throws Exception {
    try (EmbeddedBrook strict =
            EmbeddedBrook.builder().config("authorizer.class.name", AUTHORIZER).start();
        Admin admin = admin(strict.bootstrapServers())) {
      assertThatThrownBy(
              () -> admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get())
          .hasCauseInstanceOf(TopicAuthorizationException.class);
      assertThatThrownBy(() -> admin.describeCluster().nodes().get())
          .hasCauseInstanceOf(ClusterAuthorizationException.class);
    }
    try (EmbeddedBrook superUser =
            EmbeddedBrook.builder()
                .config("authorizer.class.name", AUTHORIZER)
                .config("super.users", "User:admin;" + ANONYMOUS)
                .start();
        Admin admin = admin(superUser.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
      assertThat(admin.listTopics().names().get()).contains("t");
    }
  }

  @Test
  void withoutAnAuthorizerTheAclApisAnswerSecurityDisabled() throws Exception {
    try (EmbeddedBrook plain = EmbeddedBrook.builder().start();
        Admin admin = admin(plain.bootstrapServers())) {
      assertThatThrownBy(() -> admin.describeAcls(AclBindingFilter.ANY).values().get())
          .hasCauseInstanceOf(SecurityDisabledException.class);
    }
  }

  /** ANONYMOUS may create, alter and describe on the cluster, but has no CLUSTER_ACTION. */
  static List<AclBinding> administerButNotClusterAction() {
    List<AclBinding> acls = new ArrayList<>();
    for (AclOperation op :
        List.of(
            AclOperation.CREATE,
            AclOperation.ALTER,
            AclOperation.DESCRIBE,
            AclOperation.IDEMPOTENT_WRITE)) {
      acls.add(allow(ResourceType.CLUSTER, "kafka-cluster", ANONYMOUS, op));
    }
    return acls;
  }

  private static AclBinding allow(
      ResourceType type, String name, String principal, AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, name, PatternType.LITERAL),
        new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
  }

  private static org.apache.kafka.common.Uuid topicId(String topic) throws Exception {
    try (Admin admin = admin(BROOK.bootstrapServers())) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
  }

  private static RawKafkaClient raw() throws java.io.IOException {
    return new RawKafkaClient("127.0.0.1", BROOK.brook().port());
  }

  static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(props);
  }
}
