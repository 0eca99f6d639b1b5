package io.brook.controller.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.controller.quorum.EntryCodec.Status;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state machine's apply decisions and the snapshot file, without a Raft group. */
class MetadataStateMachineTest {
  private static final List<MetadataRecord> BROKER_AND_TOPIC =
      List.of(
          new RegisterBrokerRecord(1, Uuid.randomUuid(), 0, List.of(), Optional.empty(), false),
          new TopicRecord("t", Uuid.randomUuid()));

  private final MetadataStateMachine stateMachine = new MetadataStateMachine();
  private long index;

  @TempDir Path dir;

  @AfterEach
  void close() throws IOException {
    stateMachine.close();
  }

  @Test
  void anEntryComputedOnTheCurrentImageApplies() {
    Status status = apply(-1, BROKER_AND_TOPIC);

    assertThat(status).isEqualTo(Status.APPLIED);
    assertThat(stateMachine.image().offset()).isEqualTo(1);
    assertThat(stateMachine.image().topicNames()).containsExactly("t");
  }

  @Test
  void anEntryComputedOnAnOlderImageIsSkipped() {
    // Given an applied entry
    apply(-1, BROKER_AND_TOPIC);
    MetadataImage before = stateMachine.image();

    // When a second entry, computed before the first was applied (a racing failover), arrives
    Status status = apply(-1, List.of(new TopicRecord("u", Uuid.randomUuid())));

    // Then every replica skips it alike and the submitter computes it again
    assertThat(status).isEqualTo(Status.CONFLICT);
    assertThat(stateMachine.image()).isEqualTo(before);
  }

  @Test
  void recordsThatDoNotApplyAreRejectedWithoutChangingTheImage() {
    apply(-1, BROKER_AND_TOPIC);
    MetadataImage before = stateMachine.image();

    Status status =
        apply(
            1, List.of(new PartitionRecord(Uuid.randomUuid(), 0, List.of(1), List.of(1), 1, 0, 0)));

    assertThat(status).isEqualTo(Status.REJECTED);
    assertThat(stateMachine.image()).isEqualTo(before);
  }

  @Test
  void aSnapshotFileRoundTripsAndACorruptedOneIsRefused() throws IOException {
    // Given a snapshot of an image
    apply(-1, BROKER_AND_TOPIC);
    Path file = dir.resolve("snapshot.1_5");
    SnapshotFile.write(file, 1, 5, stateMachine.image());

    // Then it reads back the same image and position
    SnapshotFile.Contents contents = SnapshotFile.read(file);
    assertThat(contents.term()).isEqualTo(1);
    assertThat(contents.index()).isEqualTo(5);
    assertThat(contents.image()).isEqualTo(stateMachine.image());

    // When one byte in the middle flips, or the file is cut short, it is refused
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x01;
    Files.write(file, bytes);
    assertThatThrownBy(() -> SnapshotFile.read(file)).isInstanceOf(IOException.class);
    Files.write(file, java.util.Arrays.copyOf(bytes, 10));
    assertThatThrownBy(() -> SnapshotFile.read(file)).isInstanceOf(IOException.class);
  }

  private Status apply(long expectedOffset, List<MetadataRecord> records) {
    index++;
    LogEntryProto entry =
        LogEntryProto.newBuilder()
            .setTerm(1)
            .setIndex(index)
            .setStateMachineLogEntry(
                StateMachineLogEntryProto.newBuilder()
                    .setLogData(ByteString.copyFrom(EntryCodec.encode(expectedOffset, records))))
            .build();
    TransactionContext trx =
        TransactionContext.newBuilder()
            .setStateMachine(stateMachine)
            .setServerRole(RaftPeerRole.FOLLOWER)
            .setLogEntry(entry)
            .build();
    ByteBuffer reply =
        stateMachine.applyTransaction(trx).join().getContent().asReadOnlyByteBuffer();
    return EntryCodec.replyStatus(reply);
  }
}
