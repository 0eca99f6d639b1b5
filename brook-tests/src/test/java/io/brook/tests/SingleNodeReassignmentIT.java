package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reassignment APIs on a single node (the local journal, no forwarding), and DescribeLogDirs,
 * which {@code kafka-reassign-partitions} reads.
 */
@Timeout(60)
class SingleNodeReassignmentIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  @Test
  void reassignmentApisAnswerOnASingleNode() throws Exception {
    // Given
    TestClients.createTopic(BROOK.bootstrapServers(), "alone", 1);
    TopicPartition tp = new TopicPartition("alone", 0);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      // When the only possible target, the current replica, is asked for
      admin
          .alterPartitionReassignments(
              Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(1)))))
          .all()
          .get(30, TimeUnit.SECONDS);

      // Then nothing moves, and other requests get Kafka's errors
      assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();
      assertThat(failure(admin, tp, Optional.of(List.of(1, 2))))
          .isInstanceOf(InvalidReplicaAssignmentException.class);
      assertThat(failure(admin, tp, Optional.empty()))
          .isInstanceOf(NoReassignmentInProgressException.class);
    }
  }

  @Test
  void describeLogDirsListsTheHostedPartitionsWithTheirSize() throws Exception {
    // Given
    TestClients.createTopic(BROOK.bootstrapServers(), "sized", 2);

    // When
    Map<String, LogDirDescription> dirs;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      dirs = admin.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS).get(1);
    }

    // Then the one data directory holds both partitions
    assertThat(dirs).hasSize(1);
    LogDirDescription dir = dirs.values().iterator().next();
    assertThat(dir.error()).isNull();
    assertThat(dir.replicaInfos())
        .containsKeys(new TopicPartition("sized", 0), new TopicPartition("sized", 1));
    assertThat(dir.replicaInfos().get(new TopicPartition("sized", 0)).isFuture()).isFalse();
    assertThat(dir.totalBytes()).isPresent();
  }

  private static Throwable failure(Admin admin, TopicPartition tp, Optional<List<Integer>> target)
      throws Exception {
    try {
      admin
          .alterPartitionReassignments(Map.of(tp, target.map(NewPartitionReassignment::new)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("reassigning " + tp + " to " + target + " succeeded");
  }
}
