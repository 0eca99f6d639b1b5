package io.brook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.cli.BrookCliTest.Run;
import io.brook.testkit.EmbeddedBrook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code brook verify} in-process through picocli against one real node: each check is clean (exit
 * 0, JSON verdict) and a cluster that cannot be reached is exit 2.
 */
class VerifyCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static EmbeddedBrook brook;

  @BeforeAll
  static void start() {
    brook = EmbeddedBrook.builder().config("group.initial.rebalance.delay.ms", "0").start();
  }

  @AfterAll
  static void stop() {
    brook.close();
  }

  private static Run run(String... args) {
    return BrookCliTest.run("", args);
  }

  /** A clean check against the test node; its JSON verdict. */
  private static JsonNode clean(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--bootstrap-server", brook.bootstrapServers(), "--format", "json"));
    Run r = run(all.toArray(String[]::new));
    assertThat(r.exit()).as("exit of %s; stdout: %s; stderr: %s", all, r.out(), r.err()).isZero();
    JsonNode verdict = JSON.readTree(r.out());
    assertThat(verdict.get("result").asText()).isEqualTo("clean");
    assertThat(verdict.get("violations")).isEmpty();
    return verdict;
  }

  @Test
  void produceIsClean() throws Exception {
    JsonNode verdict = clean("verify", "produce", "--topic", "verify-produce", "--records", "2000");
    assertThat(verdict.get("acknowledged").asInt()).isEqualTo(2000);
    assertThat(verdict.get("read").asInt()).isEqualTo(2000);

    // Again on the same topic: only this run's records are read and checked.
    JsonNode again =
        clean(
            "verify",
            "produce",
            "--topic",
            "verify-produce",
            "--records",
            "300",
            "--producers",
            "3");
    assertThat(again.get("read").asInt()).isEqualTo(300);
  }

  @Test
  void transactionalProduceIsClean() throws Exception {
    JsonNode verdict =
        clean("verify", "produce", "--topic", "verify-txn", "--records", "400", "--transactional");
    // 2 producers x 200 records in transactions of 10, every second one aborted.
    assertThat(verdict.get("transactions_committed").asInt()).isEqualTo(20);
    assertThat(verdict.get("transactions_aborted").asInt()).isEqualTo(20);
    assertThat(verdict.get("acknowledged").asInt()).isEqualTo(200);
    assertThat(verdict.get("read").asInt()).isEqualTo(200);
  }

  @Test
  void groupsIsClean() throws Exception {
    JsonNode verdict =
        clean(
            "verify",
            "groups",
            "--topic",
            "verify-groups",
            "--group",
            "verify-group",
            "--records",
            "600",
            "--restarts",
            "2");
    assertThat(verdict.get("restarts").asInt()).isEqualTo(2);
    assertThat(verdict.get("fed").asInt()).isEqualTo(600);
    assertThat(verdict.get("consumed").asInt()).isGreaterThanOrEqualTo(600);
    assertThat(verdict.get("committed").size()).isEqualTo(6);
    // Every member's commit carries the leader epoch of the last record it read, as kafka-clients'
    // own commits do, so a later owner cannot be sent back to the log start by a deposed leader.
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()))) {
      assertThat(
              admin
                  .listConsumerGroupOffsets("verify-group")
                  .partitionsToOffsetAndMetadata()
                  .get()
                  .values())
          .hasSize(6)
          .allSatisfy(committed -> assertThat(committed.leaderEpoch()).contains(0));
    }
  }

  @Test
  void refusedWritesAreViolationsExitOne() throws Exception {
    // Every record is larger than the topic takes: every send fails, which the check reports.
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("verify-refused", 1, (short) 1)
                      .configs(Map.of("max.message.bytes", "16"))))
          .all()
          .get();
    }
    Run r =
        run(
            "verify",
            "produce",
            "--topic",
            "verify-refused",
            "--records",
            "3",
            "--producers",
            "1",
            "--bootstrap-server",
            brook.bootstrapServers(),
            "--format",
            "json");
    assertThat(r.exit()).as("stderr: %s", r.err()).isEqualTo(1);
    JsonNode verdict = JSON.readTree(r.out());
    assertThat(verdict.get("result").asText()).isEqualTo("3 violations");
    assertThat(verdict.get("violations").get(0).asText())
        .startsWith("send of p1-0 to partition 0 failed: ")
        .contains("RecordTooLargeException");
  }

  @Test
  void anUnreachableClusterIsExitTwoAndABadOptionToo() {
    Run unreachable =
        run(
            "verify",
            "produce",
            "--topic",
            "t",
            "--bootstrap-server",
            "127.0.0.1:1",
            "--timeout-ms",
            "2000");
    assertThat(unreachable.exit()).isEqualTo(2);
    assertThat(unreachable.err()).startsWith("brook: error: ");

    assertThat(run("verify", "produce", "--topic", "t", "--records", "0").exit()).isEqualTo(2);
    assertThat(run("verify", "groups", "--topic", "t").exit()).as("no --group").isEqualTo(2);
  }
}
