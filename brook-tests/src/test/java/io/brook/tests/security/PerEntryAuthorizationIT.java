package io.brook.tests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DeleteConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.DeleteRecordsResult;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The multi-topic requests Kafka authorizes topic by topic, with kafka-clients' Admin and raw
 * requests: a principal ({@code User:ANONYMOUS}, with {@code allow.everyone.if.no.acl.found})
 * allowed on one topic and denied on another names both; the allowed entry takes effect, the denied
 * one gets TOPIC_AUTHORIZATION_FAILED and changes nothing.
 */
@Timeout(180)
class PerEntryAuthorizationIT {
  private static final String ANONYMOUS = "User:ANONYMOUS";

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config(
                  "authorizer.class.name",
                  "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
              .config("allow.everyone.if.no.acl.found", "true"));

  private static final TopicPartition OPEN = new TopicPartition("open", 0);

  /** ANONYMOUS may write and read it, not delete records from it. */
  private static final TopicPartition NO_DELETE = new TopicPartition("no-delete", 0);

  /** Someone else's: ANONYMOUS may do nothing with it. */
  private static final TopicPartition HIDDEN = new TopicPartition("hidden", 0);

  @BeforeAll
  static void topicsAndAcls() throws Exception {
    // ANONYMOUS may administer the cluster but not act as a broker (no CLUSTER_ACTION, which
    // would let it ask OffsetForLeaderEpoch about any topic).
    List<AclBinding> acls = new ArrayList<>(AuthorizationIT.administerButNotClusterAction());
    acls.add(allow("no-delete", ANONYMOUS, AclOperation.WRITE));
    acls.add(allow("no-delete", ANONYMOUS, AclOperation.READ));
    acls.add(allow("hidden", "User:someone-else", AclOperation.ALL));
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("open", 1, (short) 1),
                  new NewTopic("no-delete", 1, (short) 1),
                  new NewTopic("hidden", 1, (short) 1),
                  new NewTopic("read-later-denied", 1, (short) 1)))
          .all()
          .get();
      createAclsAndWait(admin, acls);
    }
  }

  @Test
  void deleteRecordsDeletesFromTheAllowedTopicOnly() throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "acks", "all")) {
      for (int i = 0; i < 2; i++) {
        producer.send(new ProducerRecord<>(OPEN.topic(), new byte[] {1})).get();
        producer.send(new ProducerRecord<>(NO_DELETE.topic(), new byte[] {1})).get();
      }
    }
    try (Admin admin = admin()) {
      DeleteRecordsResult deleted =
          admin.deleteRecords(
              Map.of(
                  OPEN,
                  RecordsToDelete.beforeOffset(2),
                  NO_DELETE,
                  RecordsToDelete.beforeOffset(2)));

      assertThat(deleted.lowWatermarks().get(OPEN).get().lowWatermark()).isEqualTo(2);
      assertThatThrownBy(() -> deleted.lowWatermarks().get(NO_DELETE).get())
          .hasCauseInstanceOf(TopicAuthorizationException.class);
      assertThat(
              admin
                  .listOffsets(
                      Map.of(NO_DELETE, org.apache.kafka.clients.admin.OffsetSpec.earliest()))
                  .partitionResult(NO_DELETE)
                  .get()
                  .offset())
          .as("nothing deleted from the denied topic")
          .isZero();
    }
  }

  @Test
  void offsetDeleteDeletesTheAllowedTopicsOffsetsOnly() throws Exception {
    TopicPartition later = new TopicPartition("read-later-denied", 0);
    String group = "offsets-of-two-topics";
    try (Admin admin = admin()) {
      admin
          .alterConsumerGroupOffsets(
              group, Map.of(OPEN, new OffsetAndMetadata(1), later, new OffsetAndMetadata(1)))
          .all()
          .get();
      AclBinding denyRead =
          new AclBinding(
              new ResourcePattern(ResourceType.TOPIC, later.topic(), PatternType.LITERAL),
              new AccessControlEntry(ANONYMOUS, "*", AclOperation.READ, AclPermissionType.DENY));
      createAclsAndWait(admin, List.of(denyRead));

      DeleteConsumerGroupOffsetsResult deleted =
          admin.deleteConsumerGroupOffsets(group, Set.of(OPEN, later));

      deleted.partitionResult(OPEN).get();
      assertThatThrownBy(() -> deleted.partitionResult(later).get())
          .hasCauseInstanceOf(TopicAuthorizationException.class);
      admin.deleteAcls(List.of(denyRead.toFilter())).all().get();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> admin.describeAcls(denyRead.toFilter()).values().get().isEmpty());
      assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
          .as("the denied topic's offset is still committed, the allowed one's is gone")
          .isEqualTo(Map.of(later, new OffsetAndMetadata(1)));
    }
  }

  @Test
  void describeProducersDescribesTheAllowedTopicOnly() throws Exception {
    try (Admin admin = admin()) {
      DescribeProducersResult described =
          admin.describeProducers(
              List.of(OPEN, HIDDEN), new DescribeProducersOptions().brokerId(1));

      assertThat(described.partitionResult(OPEN).get().activeProducers()).isNotNull();
      assertThatThrownBy(() -> described.partitionResult(HIDDEN).get())
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
  }

  @Test
  void offsetForLeaderEpochAnswersTheAllowedTopic() throws Exception {
    short version = 4;
    OffsetForLeaderEpochRequestData request =
        new OffsetForLeaderEpochRequestData().setReplicaId(-1);
    for (String topic : List.of(OPEN.topic(), HIDDEN.topic())) {
      OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t =
          new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(topic);
      t.partitions()
          .add(
              new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                  .setPartition(0)
                  .setCurrentLeaderEpoch(-1)
                  .setLeaderEpoch(0));
      request.topics().add(t);
    }
    try (RawKafkaClient raw = raw()) {
      OffsetForLeaderEpochResponseData response =
          new OffsetForLeaderEpochResponseData(
              new ByteBufferAccessor(raw.send(request, version)), version);

      assertThat(response.topics().find(OPEN.topic()).partitions().get(0).errorCode())
          .isEqualTo(Errors.NONE.code());
      assertThat(response.topics().find(HIDDEN.topic()).partitions().get(0).errorCode())
          .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
  }

  @Test
  void addPartitionsToTxnFailsWholeButTellsWhichTopicWasDenied() throws Exception {
    short version = 3;
    AddPartitionsToTxnRequestData request =
        new AddPartitionsToTxnRequestData()
            .setV3AndBelowTransactionalId("tx-free")
            .setV3AndBelowProducerId(0)
            .setV3AndBelowProducerEpoch((short) 0);
    for (String topic : List.of(OPEN.topic(), HIDDEN.topic())) {
      request
          .v3AndBelowTopics()
          .add(
              new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                  .setName(topic)
                  .setPartitions(List.of(0)));
    }
    try (RawKafkaClient raw = raw()) {
      AddPartitionsToTxnResponseData response =
          new AddPartitionsToTxnResponseData(
              new ByteBufferAccessor(raw.send(request, version)), version);

      assertThat(error(response, OPEN.topic())).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED.code());
      assertThat(error(response, HIDDEN.topic()))
          .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
  }

  private static short error(AddPartitionsToTxnResponseData response, String topic) {
    return response
        .resultsByTopicV3AndBelow()
        .find(topic)
        .resultsByPartition()
        .find(0)
        .partitionErrorCode();
  }

  private static void createAclsAndWait(Admin admin, List<AclBinding> acls) throws Exception {
    admin.createAcls(acls).all().get();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.describeAcls(AclBindingFilter.ANY).values().get().containsAll(acls));
  }

  private static AclBinding allow(String topic, String principal, AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
        new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
  }

  private static RawKafkaClient raw() throws java.io.IOException {
    return new RawKafkaClient("127.0.0.1", BROOK.brook().port());
  }

  private static Admin admin() {
    return AuthorizationIT.admin(BROOK.bootstrapServers());
  }
}
