package io.brook.cli;

import io.brook.cli.verify.GroupVerification;
import io.brook.cli.verify.ProduceVerification;
import io.brook.cli.verify.Verdict;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code brook verify produce|groups}: a bounded workload against any Kafka-protocol cluster and
 * the fault campaign's checks of it. Exit status 0 when clean, 1 with violations (listed), 2 when
 * the check could not run (usage, connection, a refused topic).
 */
@Command(
    name = "verify",
    description =
        "Run a bounded workload and check it: acknowledged writes, transactions, group offsets.",
    subcommands = {VerifyCommand.Produce.class, VerifyCommand.Groups.class})
final class VerifyCommand {

  /** Exit status when the check found violations. */
  static final int VIOLATIONS = 1;

  /** Exit status when the check could not run. */
  static final int NOT_RUN = 2;

  /** The options and the run shared by both checks. */
  abstract static class Check implements Callable<Integer> {
    @Mixin ClientOptions client;
    @Mixin FormatOption output;
    @Spec CommandSpec spec;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic to use.")
    String topic;

    @Option(
        names = "--replication-factor",
        paramLabel = "N",
        defaultValue = "-1",
        description = "Replication factor of a topic it creates (default: the broker's).")
    short replicationFactor;

    abstract void validate();

    abstract Verdict run(Admin admin) throws Exception;

    void require(boolean condition, String message) {
      if (!condition) {
        throw new ParameterException(spec.commandLine(), message);
      }
    }

    @Override
    public final Integer call() {
      validate();
      Verdict verdict;
      try (Admin admin = client.admin()) {
        verdict = run(admin);
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        spec.commandLine().getErr().println("brook: error: " + BrookCli.describe(e));
        spec.commandLine().getErr().flush();
        return NOT_RUN;
      }
      output.print(spec.commandLine().getOut(), verdict.toTree());
      return verdict.clean() ? 0 : VIOLATIONS;
    }
  }

  @Command(
      name = "produce",
      description =
          "Idempotent acks=all producers write numbered records; a read_committed consumer reads"
              + " them back: every acknowledged record once, at its offset, in send order.")
  static final class Produce extends Check {
    @Option(
        names = "--records",
        paramLabel = "N",
        defaultValue = "10000",
        description = "Records in all (default: ${DEFAULT-VALUE}).")
    int records;

    @Option(
        names = "--producers",
        paramLabel = "P",
        defaultValue = "2",
        description = "Concurrent producers (default: ${DEFAULT-VALUE}).")
    int producers;

    @Option(
        names = "--transactional",
        description = "Write in transactions, aborting every second one; check none is seen.")
    boolean transactional;

    @Option(
        names = "--transaction-records",
        paramLabel = "N",
        defaultValue = "10",
        description = "Records per transaction (default: ${DEFAULT-VALUE}).")
    int transactionRecords;

    @Option(
        names = "--partitions",
        paramLabel = "N",
        defaultValue = "3",
        description = "Partitions of a topic it creates (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Override
    void validate() {
      require(records > 0, "--records must be positive");
      require(producers > 0, "--producers must be positive");
      require(transactionRecords > 0, "--transaction-records must be positive");
      require(partitions > 0, "--partitions must be positive");
    }

    @Override
    Verdict run(Admin admin) throws Exception {
      return ProduceVerification.run(
          admin,
          client.clientProperties(),
          new ProduceVerification.Settings(
              topic,
              partitions,
              replicationFactor,
              records,
              producers,
              transactional,
              transactionRecords,
              Duration.ofMillis(client.timeoutMs)));
    }
  }

  @Command(
      name = "groups",
      description =
          "Members of a classic consumer group commit while the tool restarts them: committed"
              + " offsets never go back, no partition has two owners in one generation.")
  static final class Groups extends Check {
    @Option(names = "--group", required = true, paramLabel = "GROUP", description = "Group id.")
    String group;

    @Option(
        names = "--members",
        paramLabel = "M",
        defaultValue = "3",
        description = "Members (default: ${DEFAULT-VALUE}).")
    int members;

    @Option(
        names = "--records",
        paramLabel = "N",
        defaultValue = "2000",
        description = "Records fed to the topic (default: ${DEFAULT-VALUE}).")
    int records;

    @Option(
        names = "--restarts",
        paramLabel = "R",
        defaultValue = "3",
        description =
            "Member restarts, alternately leaving and vanishing (default: ${DEFAULT-VALUE}).")
    int restarts;

    @Option(
        names = "--partitions",
        paramLabel = "N",
        defaultValue = "6",
        description = "Partitions of a topic it creates (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(
        names = "--max-duration-ms",
        paramLabel = "MS",
        defaultValue = "300000",
        description =
            "Time for the group to consume everything; past it, a violation (default:"
                + " ${DEFAULT-VALUE}).")
    long maxDurationMs;

    @Override
    void validate() {
      require(members > 0, "--members must be positive");
      require(records > 0, "--records must be positive");
      require(restarts >= 0, "--restarts must not be negative");
      require(partitions > 0, "--partitions must be positive");
      require(maxDurationMs > 0, "--max-duration-ms must be positive");
    }

    @Override
    Verdict run(Admin admin) throws Exception {
      return GroupVerification.run(
          admin,
          client.clientProperties(),
          new GroupVerification.Settings(
              topic,
              partitions,
              replicationFactor,
              group,
              members,
              records,
              restarts,
              Duration.ofMillis(maxDurationMs)));
    }
  }
}
