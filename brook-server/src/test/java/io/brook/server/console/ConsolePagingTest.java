package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.group.lag.LagCalculator;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.ApiRegistry;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * Every list the console's pages load is cut to a page on the server: the transactions (only the
 * page's ids are described, a transaction's partitions are cut), a group's partitions (its totals
 * over every partition the user may see), and any list through {@link ClusterView#page}.
 */
class ConsolePagingTest {
  private static final InProcessApis.Caller CALLER =
      new InProcessApis.Caller(
          new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"),
          InetAddress.getLoopbackAddress(),
          "console-test");

  @Test
  void aPageIsCutAtTheMostAPageMayHold() {
    List<Integer> all = IntStream.range(0, 24_000).boxed().toList();
    ClusterView.Page<Integer> page = ClusterView.page(all, 23_990, 50);
    assertThat(page.total()).isEqualTo(24_000);
    assertThat(page.offset()).isEqualTo(23_990);
    assertThat(page.rows()).hasSize(10).startsWith(23_990);
    assertThat(ClusterView.page(all, 0, 100_000).rows()).hasSize(ClusterView.MAX_PAGE);
    assertThat(ClusterView.page(all, 30_000, 50).offset()).isEqualTo(24_000);
    assertThat(ClusterView.page(all, 30_000, 50).rows()).isEmpty();
  }

  @Test
  void transactionsArePagedAndOnlyThePagesIdsAreDescribed() {
    List<DescribeTransactionsRequestData> described = new ArrayList<>();
    InProcessApis apis =
        new InProcessApis(
            ApiRegistry.of(
                ConsoleClusterTest.handler(
                    ApiKeys.LIST_TRANSACTIONS,
                    request -> {
                      ListTransactionsResponseData response = new ListTransactionsResponseData();
                      // Not in id order: the page sorts.
                      for (int i = 119; i >= 0; i--) {
                        response
                            .transactionStates()
                            .add(
                                new ListTransactionsResponseData.TransactionState()
                                    .setTransactionalId(String.format("txn-%03d", i))
                                    .setProducerId(i)
                                    .setTransactionState("Ongoing"));
                      }
                      return response;
                    }),
                ConsoleClusterTest.handler(
                    ApiKeys.DESCRIBE_TRANSACTIONS,
                    request -> {
                      DescribeTransactionsRequestData asked =
                          (DescribeTransactionsRequestData) request;
                      described.add(asked.duplicate());
                      DescribeTransactionsResponseData response =
                          new DescribeTransactionsResponseData();
                      for (String id : asked.transactionalIds()) {
                        response.transactionStates().add(ongoing(id));
                      }
                      return response;
                    })),
            ConsoleApi.CLIENT_ID,
            "PLAINTEXT");
    ConsoleTransactions transactions =
        new ConsoleTransactions(
            new ConsoleCluster(apis, null, () -> MetadataImage.EMPTY, 1), 900_000);

    JsonNode page = transactions.transactions("", 50, 50, CALLER).join();
    assertThat(page.get("total").asInt()).isEqualTo(120);
    assertThat(page.get("offset").asInt()).isEqualTo(50);
    assertThat(page.get("transactions")).hasSize(50);
    assertThat(page.get("transactions").get(0).get("transactional_id").asText())
        .isEqualTo("txn-050");
    assertThat(described).hasSize(1);
    assertThat(described.get(0).transactionalIds()).hasSize(50).startsWith("txn-050");

    // txn-007 wrote to 3,000 partitions: the row names the first ones and counts them all.
    JsonNode searched = transactions.transactions("txn-00", 0, 50, CALLER).join();
    assertThat(searched.get("total").asInt()).isEqualTo(10);
    JsonNode wide = searched.get("transactions").get(7);
    assertThat(wide.get("transactional_id").asText()).isEqualTo("txn-007");
    assertThat(wide.get("partition_count").asInt()).isEqualTo(3_000);
    assertThat(wide.get("partitions")).hasSize(ConsoleTransactions.MAX_PARTITIONS_SHOWN);
    assertThat(wide.get("partitions").get(0).get("topic").asText()).isEqualTo("wide-0000");
    assertThat(searched.get("transactions").get(6).get("partition_count").asInt()).isEqualTo(1);
  }

  private static DescribeTransactionsResponseData.TransactionState ongoing(String id) {
    DescribeTransactionsResponseData.TransactionState state =
        new DescribeTransactionsResponseData.TransactionState()
            .setTransactionalId(id)
            .setTransactionState("Ongoing")
            .setProducerId(7)
            .setTransactionTimeoutMs(60_000)
            .setTransactionStartTimeMs(System.currentTimeMillis());
    int topics = id.equals("txn-007") ? 250 : 1;
    // Topics in reverse order: the row sorts them.
    for (int t = topics - 1; t >= 0; t--) {
      DescribeTransactionsResponseData.TopicData topic =
          new DescribeTransactionsResponseData.TopicData().setTopic(String.format("wide-%04d", t));
      for (int p = 0; p < (topics == 1 ? 1 : 12); p++) {
        topic.partitions().add(p);
      }
      state.topics().add(topic);
    }
    return state;
  }

  @Test
  void anOffsetResetOfEveryPartitionListsTheFirstOnesAndTotalsThemAll() {
    List<OffsetReset.Row> plan = new ArrayList<>();
    for (int t = 0; t < 2_000; t++) {
      for (int p = 0; p < 12; p++) {
        plan.add(new OffsetReset.Row(new TopicPartition(String.format("topic-%04d", t), p), 10, 4));
      }
    }
    JsonNode preview = OffsetReset.render("big", plan, false);
    assertThat(preview.get("partition_count").asInt()).isEqualTo(24_000);
    assertThat(preview.get("skipped_total").asLong()).isEqualTo(-6L * 24_000);
    assertThat(preview.get("partitions")).hasSize(OffsetReset.MAX_ROWS);
    assertThat(preview.get("partitions").get(12).get("topic").asText()).isEqualTo("topic-0001");
  }

  @Test
  void aGroupsPartitionsArePagedWithTotalsOverThoseTheUserMaySee() {
    long now = 1_000_000_000L;
    List<GroupPositions.Position> positions = new ArrayList<>();
    // 2,000 topics x 12 partitions, each 3 records behind; in reverse order: the page sorts.
    for (int t = 1_999; t >= 0; t--) {
      for (int p = 11; p >= 0; p--) {
        positions.add(
            new GroupPositions.Position(
                new TopicPartition(String.format("topic-%04d", t), p),
                new CommittedOffset(7, -1, "", -1),
                Optional.empty()));
      }
    }
    // Every partition ends at 10; the unread record of topic-0005 is the oldest (90 s).
    Map<TopicPartition, Integer> measured = new HashMap<>();
    PartitionEnds ends =
        new PartitionEnds() {
          @Override
          public Optional<Ends> leaderEnds(TopicPartition partition) {
            return Optional.of(new Ends(0, 10, -1));
          }

          @Override
          public OptionalLong batchTimestamp(TopicPartition tp, long offset, long maxOffset) {
            measured.merge(tp, 1, Integer::sum);
            return OptionalLong.of(now - (tp.topic().equals("topic-0005") ? 90_000 : 1_000));
          }
        };
    // The user may not describe topic-0005.
    Set<String> allowed = new HashSet<>();
    for (int t = 0; t < 2_000; t++) {
      if (t != 5) {
        allowed.add(String.format("topic-%04d", t));
      }
    }
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ConsoleGroups.PartitionPage page =
        ConsoleGroups.partitionPage(new GroupPositions("big", positions), allowed, 100, 100);
    ConsoleGroups.groupPartitions(
        root, new DescribeGroupsResponseData.DescribedGroup(), page, new LagCalculator(ends), now);

    assertThat(root.get("partition_count").asInt()).isEqualTo(1_999 * 12);
    assertThat(root.get("offset").asInt()).isEqualTo(100);
    assertThat(root.get("partitions")).hasSize(100);
    // topic-0000 to 0004 fill offsets 0 to 59, then topic-0006 (0005 hidden) 60 to 71: offset 100
    // is topic-0009 partition 4, and the page goes on by topic and partition.
    JsonNode first = root.get("partitions").get(0);
    assertThat(first.get("topic").asText()).isEqualTo("topic-0009");
    assertThat(first.get("partition").asInt()).isEqualTo(4);
    assertThat(first.get("committed_offset").asLong()).isEqualTo(7);
    assertThat(first.get("log_end_offset").asLong()).isEqualTo(10);
    assertThat(first.get("lag_records").asLong()).isEqualTo(3);
    assertThat(first.get("lag_seconds").asDouble()).isEqualTo(1.0);
    JsonNode last = root.get("partitions").get(99);
    assertThat(last.get("topic").asText()).isEqualTo("topic-0017");
    assertThat(last.get("partition").asInt()).isEqualTo(7);
    // The totals: over every partition the user may see, and only those.
    assertThat(root.get("lag_records").asLong()).isEqualTo(1_999L * 12 * 3);
    assertThat(root.get("lag_seconds").asDouble()).isEqualTo(1.0);
    assertThat(measured).doesNotContainKey(new TopicPartition("topic-0005", 0));
    assertThat(measured).hasSize(1_999 * 12);
  }

  @Test
  void aGroupWithoutOffsetsShowsNoPartitionsAndNoLag() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ConsoleGroups.groupPartitions(
        root, new DescribeGroupsResponseData.DescribedGroup(), null, null, 0);
    assertThat(root.get("partition_count").asInt()).isZero();
    assertThat(root.get("partitions")).isEmpty();
    assertThat(root.get("lag_records").isNull()).isTrue();
  }
}
