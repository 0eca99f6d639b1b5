package io.brook.coordinator.fuzz;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.group.classic.ClassicGroupRecords;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedMember;
import io.brook.coordinator.group.consumer.ConsumerGroupRecords;
import io.brook.coordinator.group.consumer.MemberAssignment;
import io.brook.coordinator.group.consumer.MemberState;
import io.brook.coordinator.group.consumer.MemberSubscription;
import io.brook.coordinator.group.consumer.TopicMetadata;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.group.offsets.OffsetRecords;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.txn.TransactionState;
import io.brook.coordinator.txn.TxnMetadata;
import io.brook.coordinator.txn.TxnRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataValue;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogKey;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;

/**
 * Writes the seed corpora of {@link CoordinatorRecordFuzzTest}: real records, from Kafka's own
 * generated record classes and from Brook's writers. Run once with the test classpath and the
 * module directory as argument; the files are checked in.
 */
final class FuzzSeeds {
  private static final String DIR =
      "src/test/resources/io/brook/coordinator/fuzz/CoordinatorRecordFuzzTestInputs/";

  private FuzzSeeds() {}

  public static void main(String[] args) throws IOException {
    Path module = Path.of(args.length > 0 ? args[0] : ".");
    write(module.resolve(DIR + "groupRecords"), groupSeeds());
    write(module.resolve(DIR + "transactionRecords"), transactionSeeds());
  }

  private static void write(Path dir, Map<String, List<FuzzRecords.Entry>> seeds)
      throws IOException {
    Files.createDirectories(dir);
    for (Map.Entry<String, List<FuzzRecords.Entry>> seed : seeds.entrySet()) {
      Files.write(dir.resolve(seed.getKey()), FuzzRecords.encode(seed.getValue()));
    }
  }

  private static FuzzRecords.Entry brook(CoordinatorRecord record) {
    ByteBuffer key = ByteBuffer.allocate(2 + record.key().remaining());
    key.putShort(record.type()).put(record.key().duplicate()).flip();
    return new FuzzRecords.Entry(key, record.value() == null ? null : record.value().duplicate());
  }

  private static FuzzRecords.Entry kafka(ApiMessage key, short valueVersion, ApiMessage value) {
    return new FuzzRecords.Entry(
        MessageUtil.toCoordinatorTypePrefixedByteBuffer(key),
        value == null ? null : MessageUtil.toVersionPrefixedByteBuffer(valueVersion, value));
  }

  private static Map<String, List<FuzzRecords.Entry>> groupSeeds() {
    TopicPartition tp = new TopicPartition("orders", 3);
    Uuid topicId = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    TreeSet<TopicIdPartition> owned = new TreeSet<>(List.of(new TopicIdPartition(topicId, 0)));
    List<FuzzRecords.Entry> consumer = new ArrayList<>();
    consumer.add(brook(ConsumerGroupRecords.groupEpoch("cg", 2)));
    consumer.add(
        brook(
            ConsumerGroupRecords.partitionMetadata(
                "cg", List.of(new TopicMetadata(topicId, "orders", 4)))));
    consumer.add(
        brook(
            ConsumerGroupRecords.memberMetadata(
                "cg",
                "m1",
                new MemberSubscription(
                    "i1", "r1", "client", "/127.0.0.1", List.of("orders"), null, 30_000, null))));
    consumer.add(brook(ConsumerGroupRecords.targetAssignmentEpoch("cg", 2)));
    consumer.add(brook(ConsumerGroupRecords.targetAssignment("cg", "m1", owned)));
    consumer.add(
        brook(
            ConsumerGroupRecords.currentAssignment(
                "cg",
                "m1",
                new MemberAssignment(
                    2, 1, MemberState.UNREVOKED_PARTITIONS, owned, new TreeSet<>()))));
    PersistedGroup classic =
        new PersistedGroup(
            "classic",
            "consumer",
            5,
            "range",
            "m1",
            1_000L,
            List.of(
                new PersistedMember(
                    "m1", null, "c1", "/h", 30_000, 10_000, new byte[] {1, 2}, new byte[] {3}),
                new PersistedMember(
                    "m2", "static", "c2", "/h", 30_000, 10_000, new byte[] {1}, new byte[0])));
    Map<String, List<FuzzRecords.Entry>> seeds = new HashMap<>();
    seeds.put("kafka-consumer-group", kafkaConsumerGroup(topicId));
    seeds.putAll(
        Map.of(
            "brook-offset-commit",
            List.of(
                brook(OffsetRecords.commit("g", tp, new CommittedOffset(42, 7, "meta", 1_000L)))),
            "brook-offset-commit-then-tombstone",
            List.of(
                brook(OffsetRecords.commit("g", tp, new CommittedOffset(42, 7, "", 1_000L))),
                brook(OffsetRecords.tombstone("g", tp))),
            "brook-classic-group",
            List.of(brook(ClassicGroupRecords.record(classic))),
            "brook-classic-group-then-tombstone",
            List.of(
                brook(ClassicGroupRecords.record(classic)),
                brook(ClassicGroupRecords.tombstone("classic"))),
            "brook-consumer-group",
            consumer,
            // Found by reasoning about the fuzzer's contract: a consumer-group record for a group
            // that is a classic group escaped as IllegalStateException.
            "regression-consumer-record-for-a-classic-group",
            List.of(
                brook(ClassicGroupRecords.record(classic)),
                brook(ConsumerGroupRecords.groupEpoch("classic", 1))),
            "kafka-offset-commit-v3",
            List.of(
                kafka(
                    new OffsetCommitKey().setGroup("g").setTopic("orders").setPartition(3),
                    (short) 3,
                    new OffsetCommitValue()
                        .setOffset(42)
                        .setLeaderEpoch(7)
                        .setMetadata("meta")
                        .setCommitTimestamp(1_000L))),
            "kafka-offset-commit-v4",
            List.of(
                kafka(
                    new OffsetCommitKey().setGroup("g").setTopic("orders").setPartition(3),
                    (short) 4,
                    new OffsetCommitValue().setOffset(42).setLeaderEpoch(7).setMetadata("meta"))),
            "kafka-group-metadata",
            List.of(
                kafka(
                    new GroupMetadataKey().setGroup("classic"),
                    (short) 3,
                    new GroupMetadataValue()
                        .setProtocolType("consumer")
                        .setGeneration(5)
                        .setProtocol("range")
                        .setLeader("m1")
                        .setCurrentStateTimestamp(1_000L)
                        .setMembers(
                            List.of(
                                new GroupMetadataValue.MemberMetadata()
                                    .setMemberId("m1")
                                    .setClientId("c1")
                                    .setClientHost("/h")
                                    .setRebalanceTimeout(30_000)
                                    .setSessionTimeout(10_000)
                                    .setSubscription(new byte[] {1, 2})
                                    .setAssignment(new byte[] {3}))))),
            "kafka-consumer-group-metadata",
            List.of(
                kafka(
                    new ConsumerGroupMetadataKey().setGroupId("cg"),
                    (short) 0,
                    new ConsumerGroupMetadataValue().setEpoch(2)))));
    return seeds;
  }

  /** A whole consumer group as Kafka writes it, then its member leaving. */
  private static List<FuzzRecords.Entry> kafkaConsumerGroup(Uuid topicId) {
    short v0 = 0;
    List<FuzzRecords.Entry> out = new ArrayList<>();
    out.add(
        kafka(
            new ConsumerGroupMetadataKey().setGroupId("kg"),
            v0,
            new ConsumerGroupMetadataValue().setEpoch(3)));
    out.add(
        kafka(
            new ConsumerGroupPartitionMetadataKey().setGroupId("kg"),
            v0,
            new ConsumerGroupPartitionMetadataValue()
                .setTopics(
                    List.of(
                        new ConsumerGroupPartitionMetadataValue.TopicMetadata()
                            .setTopicId(topicId)
                            .setTopicName("orders")
                            .setNumPartitions(2)))));
    out.add(
        kafka(
            new ConsumerGroupMemberMetadataKey().setGroupId("kg").setMemberId("m1"),
            v0,
            new ConsumerGroupMemberMetadataValue()
                .setInstanceId(null)
                .setRackId(null)
                .setClientId("client")
                .setClientHost("/127.0.0.1")
                .setSubscribedTopicNames(List.of("orders"))
                .setSubscribedTopicRegex(null)
                .setRebalanceTimeoutMs(30_000)
                .setServerAssignor("uniform")
                .setClassicMemberMetadata(null)));
    out.add(
        kafka(
            new ConsumerGroupTargetAssignmentMetadataKey().setGroupId("kg"),
            v0,
            new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(3)));
    out.add(
        kafka(
            new ConsumerGroupTargetAssignmentMemberKey().setGroupId("kg").setMemberId("m1"),
            v0,
            new ConsumerGroupTargetAssignmentMemberValue()
                .setTopicPartitions(
                    List.of(
                        new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                            .setTopicId(topicId)
                            .setPartitions(List.of(0, 1))))));
    ConsumerGroupCurrentMemberAssignmentKey current =
        new ConsumerGroupCurrentMemberAssignmentKey().setGroupId("kg").setMemberId("m1");
    out.add(
        kafka(
            current,
            v0,
            new ConsumerGroupCurrentMemberAssignmentValue()
                .setMemberEpoch(3)
                .setPreviousMemberEpoch(2)
                .setState((byte) 0)
                .setAssignedPartitions(
                    List.of(
                        new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                            .setTopicId(topicId)
                            .setPartitions(List.of(0, 1))))
                .setPartitionsPendingRevocation(List.of())));
    out.add(kafka(current, v0, null));
    return out;
  }

  private static Map<String, List<FuzzRecords.Entry>> transactionSeeds() {
    TxnMetadata ongoing =
        new TxnMetadata(
            "txn-1",
            4242L,
            (short) 7,
            TxnMetadata.NO_EPOCH,
            60_000,
            TransactionState.ONGOING,
            Set.of(new TopicPartition("a", 0), new TopicPartition("b", 1)),
            1_000L,
            2_000L);
    TxnMetadata preparing =
        new TxnMetadata(
            "txn-2",
            4243L,
            (short) 1,
            TxnMetadata.NO_EPOCH,
            60_000,
            TransactionState.PREPARE_COMMIT,
            Set.of(new TopicPartition("a", 2)),
            1_000L,
            2_000L);
    TransactionLogValue kafkaValue =
        new TransactionLogValue()
            .setProducerId(99L)
            .setProducerEpoch((short) 3)
            .setTransactionTimeoutMs(5_000)
            .setTransactionStatus((byte) 1)
            .setTransactionPartitions(
                List.of(
                    new TransactionLogValue.PartitionsSchema()
                        .setTopic("a")
                        .setPartitionIds(List.of(0, 1))))
            .setTransactionLastUpdateTimestampMs(2_000L)
            .setTransactionStartTimestampMs(1_000L);
    return Map.of(
        "brook-ongoing",
        List.of(brook(TxnRecords.record(ongoing))),
        "brook-prepare-commit",
        List.of(brook(TxnRecords.record(preparing))),
        "brook-ongoing-then-tombstone",
        List.of(brook(TxnRecords.record(ongoing)), brook(TxnRecords.tombstone("txn-1"))),
        "kafka-transaction-v0",
        List.of(kafka(new TransactionLogKey().setTransactionalId("txn-k"), (short) 0, kafkaValue)),
        "kafka-transaction-v1",
        List.of(kafka(new TransactionLogKey().setTransactionalId("txn-k"), (short) 1, kafkaValue)));
  }
}
