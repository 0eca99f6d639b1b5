package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.faults.CampaignFault.Injection;
import io.brook.tests.cluster.faults.CampaignFault.Target;
import io.brook.tests.tiered.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The long fault campaign: random fault cycles on three combined nodes (in network namespaces where
 * possible), each cycle on topics of its own. A cycle starts the idempotent acks=all producers and
 * the offset watcher of {@link FaultScenario} and, if asked, one more {@link CampaignWorkload};
 * injects one {@link CampaignFault} into a node picked by role (a partition leader, a follower, the
 * active controller, the group coordinator); waits until every ISR is full and every partition
 * takes writes; then runs every checker. Each cycle appends one JSON line to {@code cycles.jsonl}
 * in the output directory (seed, cycle, fault, targets, durations, the unwritable window, records
 * acknowledged, violations, the recovery's actions). After every cycle {@link ClusterRecovery}
 * heals the cluster and restarts any node that exited or is not a registered, unfenced broker
 * within a bound; a cycle with violations or such a restart, or one that took three or more Raft
 * elections or left a partition without writes for over 3 s after one node crashed, keeps the
 * nodes' logs under {@code failures/<cycle>/} (one with violations also its topics' and the
 * internal topics' log directories, zipped per node), and the campaign goes on with the next.
 *
 * <p>Not in the default suite (its name does not end in IT): {@code scripts/fault-campaign.sh} runs
 * it with the {@code fault-campaign} profile and these system properties:
 *
 * <ul>
 *   <li>{@code brook.faults.classes}: fault classes, comma-separated (default all; see {@link
 *       #FAULTS});
 *   <li>{@code brook.faults.workloads}: {@code producer} (always runs) and any of {@code txn},
 *       {@code groups}, {@code compacted}, {@code churn}, {@code share}, {@code tiered} (one picked
 *       per cycle; {@code tiered} also runs an S3 server in this JVM for the nodes' tiered
 *       storage);
 *   <li>{@code brook.faults.cycles} (default 50) and {@code brook.faults.minutes}: stop at
 *       whichever comes first (0: no limit);
 *   <li>{@code brook.faults.seed}: a cycle's choices come from the seed and its number alone, so
 *       {@code brook.faults.firstCycle=N} with the same seed repeats cycle N's fault, targets and
 *       durations;
 *   <li>{@code brook.faults.out}: the output directory (default {@code target/fault-campaign});
 *   <li>{@code brook.faults.keepLogs}: keep every cycle's node logs, not only a failing one's (to
 *       study a cycle that passed but took long).
 * </ul>
 */
class ReplicationFaultCampaign {
  /** How much of why a cycle did not complete goes into its line of the cycles file. */
  private static final int MAX_INCOMPLETE_CHARS = 2_000;

  /** Every fault class, by name. */
  static final Map<String, CampaignFault> FAULTS = faults();

  /**
   * How long a node may take to start, at the campaign's start and after each fault: libfaketime
   * preloaded slows a JVM's start, and so does a machine busy with other work while the campaign
   * runs at the lowest priority.
   */
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  /** How long the campaign's first admin calls may take, on the same grounds. */
  private static final Duration FIRST_CALLS_TIMEOUT = Duration.ofMinutes(3);

  @TempDir static Path dir;
  private static ClusterHarness cluster;
  private static ClusterRecovery recovery;
  private static List<CampaignFault> selected;
  private static S3ProxyServer s3;

  private static Map<String, CampaignFault> faults() {
    Map<String, CampaignFault> all = new LinkedHashMap<>();
    for (CampaignFault f :
        List.of(
            new CrashFault(true),
            new PauseFault(false),
            new PauseFault(true),
            new CrashFault(false),
            new KillTwoFault(),
            new KillAllFault(),
            new IsolateFault(),
            new BridgeFault(),
            new OneWayCutFault(),
            new SlowLinkFault(),
            new LossyLinkFault(),
            new ClockFault(),
            new DiskErrorFault(),
            new FullDiskFault(),
            new LostCacheFault(),
            // Last, so that --faults naming the fifteen before it replays their earlier seeds.
            new ListenerCutFault())) {
      all.put(f.name(), f);
    }
    return all;
  }

  private static List<String> list(String property, String defaults) {
    return Arrays.stream(System.getProperty(property, defaults).split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  @BeforeAll
  static void start() throws Exception {
    List<String> names = list("brook.faults.classes", String.join(",", FAULTS.keySet()));
    for (String name : names) {
      if (!FAULTS.containsKey(name)) {
        throw new IllegalArgumentException(
            "unknown fault class " + name + "; known: " + FAULTS.keySet());
      }
    }
    Optional<String> noNetwork = ClusterHarness.networkFaultsUnavailableReason();
    Optional<Path> faketime = names.contains("clock") ? ClockFault.library() : Optional.empty();
    Optional<Path> failio = names.contains("disk") ? DiskErrorFault.build(dir) : Optional.empty();
    if (names.contains("full-disk")) {
      fullDisk().mountDisks(dir, 3);
    }
    List<String> workloads = list("brook.faults.workloads", "producer");
    Map<String, String> settings = new HashMap<>();
    if (ClusterHarness.runsKafka()
        && (workloads.contains("tiered") || workloads.contains("share"))) {
      // Kafka's nodes have neither Brook's S3 store on their class path nor its share settings.
      throw new IllegalArgumentException(
          "the share and tiered workloads run on Brook's nodes only, not with Kafka's");
    }
    if (workloads.contains("tiered")) {
      s3 = S3ProxyServer.onEveryAddress();
      settings.putAll(TieredWorkload.brokerSettings(s3));
    }
    if (workloads.contains("share")) {
      settings.putAll(ShareWorkload.brokerSettings());
    }
    List<String> preload = new ArrayList<>();
    faketime.ifPresent(p -> preload.add(p.toString()));
    failio.ifPresent(p -> preload.add(p.toAbsolutePath().toString()));
    System.out.println(
        "ReplicationFaultCampaign: "
            + noNetwork
                .map(r -> "nodes on loopback, no link cuts: " + r)
                .orElse("nodes in network namespaces")
            + (preload.isEmpty() ? "" : "; preloaded " + preload));
    cluster =
        ClusterHarness.startWithEnvironment(
            dir,
            3,
            settings,
            noNetwork.isEmpty(),
            id -> {
              Map<String, String> env = new HashMap<>();
              if (!preload.isEmpty()) {
                env.put("LD_PRELOAD", String.join(":", preload));
              }
              try {
                if (faketime.isPresent()) {
                  env.putAll(ClockFault.environment(dir, id));
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
              if (failio.isPresent()) {
                env.putAll(DiskErrorFault.environment(dir, id));
              }
              return env;
            },
            READY_TIMEOUT);
    recovery = new ClusterRecovery(cluster, ClusterRecovery.SETTLE);
    anchorCoordinatedGroup();
    selected = new ArrayList<>();
    for (String name : names) {
      CampaignFault fault = FAULTS.get(name);
      Optional<String> why = fault.unavailable(cluster);
      if (why.isPresent()) {
        System.out.println("SKIPPED fault class " + name + ": " + why.get());
      } else {
        selected.add(fault);
      }
    }
    if (selected.isEmpty()) {
      throw new IllegalStateException("none of the fault classes " + names + " can run here");
    }
  }

  /**
   * Commits an offset for {@link FaultContext#COORDINATED_GROUP}, so that the group exists from the
   * start and its coordinator can be looked up (a group that never existed is not found).
   */
  private static void anchorCoordinatedGroup() throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        Long.toString(FIRST_CALLS_TIMEOUT.toMillis()));
    try (Admin admin = Admin.create(props)) {
      try {
        admin
            .createTopics(List.of(new NewTopic("campaign-anchor", 1, (short) 3)))
            .all()
            .get(FIRST_CALLS_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        // A retry of a creation whose first answer was lost finds the topic there.
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      admin
          .alterConsumerGroupOffsets(
              FaultContext.COORDINATED_GROUP,
              Map.of(new TopicPartition("campaign-anchor", 0), new OffsetAndMetadata(0)))
          .all()
          .get(FIRST_CALLS_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (s3 != null) {
      s3.close();
    }
    fullDisk().unmountDisks(dir, 3);
  }

  private static FullDiskFault fullDisk() {
    return (FullDiskFault) FAULTS.get("full-disk");
  }

  private static CampaignWorkload workload(String name) {
    return switch (name) {
      case "txn" -> new TransactionWorkload();
      case "groups" -> new GroupWorkload();
      case "compacted" -> new CompactedWorkload();
      case "churn" -> new TopicChurnWorkload(cluster);
      case "share" -> new ShareWorkload();
      case "tiered" -> new TieredWorkload();
      default ->
          throw new IllegalArgumentException(
              "unknown workload "
                  + name
                  + "; known: producer, txn, groups, compacted, churn, share, tiered");
    };
  }

  /** The longest a partition should go without writes when one node crashes. */
  private static final Duration CRASH_GAP_GOAL = Duration.ofSeconds(3);

  @Test
  // A cycle takes 10-60 s; every wait in one is bounded (a restart 90 s, the recovery 2 minutes),
  // so a hang still fails. The campaign's own limits are brook.faults.cycles and .minutes.
  @Timeout(value = 48, unit = TimeUnit.HOURS)
  void randomFaultCycles() throws Exception {
    int cycles = Integer.getInteger("brook.faults.cycles", 50);
    double minutes = Double.parseDouble(System.getProperty("brook.faults.minutes", "0"));
    long seed = Long.getLong("brook.faults.seed", System.nanoTime() & 0xffffffffL);
    int first = Integer.getInteger("brook.faults.firstCycle", 1);
    Path out = Path.of(System.getProperty("brook.faults.out", "target/fault-campaign"));
    List<String> extras =
        list("brook.faults.workloads", "producer").stream()
            .filter(w -> !w.equals("producer"))
            .toList();
    extras.forEach(w -> workload(w).close());
    Files.createDirectories(out);
    Path jsonl = out.resolve("cycles.jsonl");
    System.out.printf(
        "Fault campaign: faults %s, workloads producer%s, %s cycles, %s minutes, seed %d"
            + " (repeat cycle N with -Dbrook.faults.seed=%d -Dbrook.faults.firstCycle=N"
            + " -Dbrook.faults.cycles=1), results in %s%n",
        selected.stream().map(CampaignFault::name).toList(),
        extras.isEmpty() ? "" : " + one of " + extras,
        cycles == 0 ? "unlimited" : cycles,
        minutes == 0 ? "unlimited" : minutes,
        seed,
        seed,
        jsonl.toAbsolutePath());
    long deadline = System.nanoTime() + (long) (minutes * 60e9);
    int failed = 0;
    int run = 0;
    for (int cycle = first; cycles == 0 || run < cycles; cycle++, run++) {
      if (minutes > 0 && System.nanoTime() - deadline > 0) {
        break;
      }
      Random random = new Random(mix(seed, cycle));
      CampaignFault fault = selected.get(random.nextInt(selected.size()));
      String extra = extras.isEmpty() ? null : extras.get(random.nextInt(extras.size()));
      CycleRecord record = runCycle(seed, cycle, fault, extra, random, out);
      Files.writeString(
          jsonl, record.toJson() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      if (!((List<?>) record.get("violations")).isEmpty()) {
        failed++;
      }
    }
    System.out.printf(
        "Fault campaign: %d cycles (seed %d), %d with violations; see %s%n",
        run, seed, failed, jsonl.toAbsolutePath());
    if (failed > 0) {
      throw new AssertionError(failed + " of " + run + " cycles found violations; see " + jsonl);
    }
  }

  /**
   * The seed of one cycle's random. java.util.Random's first outputs for nearby seeds are nearly
   * the same, so seed and cycle are scrambled (SplitMix64's finaliser) rather than added.
   */
  static long mix(long seed, int cycle) {
    long z = seed * 0x9E3779B97F4A7C15L + cycle;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static CycleRecord runCycle(
      long seed, int cycle, CampaignFault fault, String extraName, Random random, Path out)
      throws Exception {
    long started = System.currentTimeMillis();
    CycleRecord record =
        new CycleRecord()
            .put("seed", seed)
            .put("cycle", cycle)
            .put("started", Instant.ofEpochMilli(started).toString())
            .put("fault", fault.name())
            .put(
                "workloads",
                extraName == null ? List.of("producer") : List.of("producer", extraName));
    List<String> violations = new ArrayList<>();
    Map<String, Object> checks = new LinkedHashMap<>();
    String topic = "c" + cycle;
    long epochBefore = raftLeaderEpoch();
    FaultScenario s = null;
    CampaignWorkload extra = extraName == null ? null : workload(extraName);
    long acked = 0;
    boolean oneNodeCrashed = false;
    long longestGap = -1;
    try {
      recovery
          .awaitSettled(ClusterRecovery.SETTLE)
          .ifPresent(
              why -> {
                throw new AssertionError("the cluster had not settled before the cycle: " + why);
              });
      s = FaultScenario.start(cluster, topic);
      if (extra != null) {
        extra.start(cluster.bootstrapServers(), topic);
      }
      FaultContext.hold(Duration.ofMillis(1_000 + random.nextInt(1_000)));
      s.faultStarts("#" + cycle + " " + fault.name());
      Injection injection = fault.inject(new FaultContext(cluster, s, random));
      s.awaitHealthy(Duration.ofMinutes(2));
      s.awaitWritable(Duration.ofSeconds(60));
      long recovered = System.nanoTime();
      s.faultEnds();
      long from = fault.crash() ? injection.startNanos() : injection.endNanos();
      oneNodeCrashed = fault.crash() && injection.targets().size() == 1;
      List<Map<String, Object>> targets = new ArrayList<>();
      for (Target t : injection.targets()) {
        Map<String, Object> target = new LinkedHashMap<>();
        target.put("node", t.node());
        target.put("role", t.role());
        targets.add(target);
      }
      record
          .put("targets", targets)
          .put("hold_ms", injection.holdMillis())
          .put("fault_ms", (injection.endNanos() - injection.startNanos()) / 1_000_000)
          .put("recovery_ms", (recovered - injection.endNanos()) / 1_000_000)
          .put("window_from", fault.crash() ? "fault start" : "fault end")
          .put("window_ms", s.writableAfterMillis(from));
      try {
        // The first write of every partition after the fault (window_ms) misses an outage that
        // starts later, as when a node notices its failed disk only after a while: the longest
        // gap between acknowledged writes of one partition around the fault does not.
        Map<String, Long> gaps = s.finish();
        longestGap = gaps.values().stream().mapToLong(Long::longValue).max().orElse(-1);
        record.put("longest_gap_ms", longestGap);
        checks.put("producer", "ok");
      } catch (AssertionError e) {
        checks.put("producer", "violations");
        violations.add("producer: " + e.getMessage());
      }
      acked += s.log().acks().size();
      if (extra != null) {
        CampaignWorkload.Result result = extra.finish();
        acked += result.acknowledged();
        checks.put(extraName, result.violations().isEmpty() ? "ok" : "violations");
        result.violations().forEach(v -> violations.add(extraName + ": " + v));
      }
    } catch (Exception | AssertionError e) {
      // The first lines only: an assertion may carry a node's whole log, which the cycle's
      // failure directory keeps anyway (the cycles file would grow by megabytes).
      String what = e.toString();
      if (what.length() > MAX_INCOMPLETE_CHARS) {
        what = what.substring(0, MAX_INCOMPLETE_CHARS) + " [...; in the cycle's node logs]";
      }
      violations.add("cycle did not complete: " + what);
      checks.put("cycle", "incomplete");
      e.printStackTrace(System.out);
    } finally {
      if (extra != null) {
        extra.close();
      }
      if (s != null) {
        s.close();
      }
    }
    record.put("acknowledged", acked).put("checks", checks).put("violations", violations);
    if (violations.isEmpty()) {
      deleteTopics(topic);
    }
    // After the deletion: a node that a deletion shut down is the cycle's too.
    List<ClusterRecovery.Action> actions;
    try {
      actions = recovery.recover();
    } catch (RuntimeException | AssertionError e) {
      // A node that cannot even be killed: the next cycle's start says whether the cluster is back.
      e.printStackTrace(System.out);
      actions = List.of(new ClusterRecovery.Action(0, "the recovery failed", String.valueOf(e), 0));
    }
    long epochAfter = raftLeaderEpoch();
    long elections = epochBefore < 0 || epochAfter < 0 ? -1 : Math.max(0, epochAfter - epochBefore);
    record
        .put("recovery", actions.stream().map(ClusterRecovery.Action::toMap).toList())
        .put("raft_elections", elections)
        .put("duration_ms", System.currentTimeMillis() - started);
    // A cycle that passed its checks but cost the quorum several elections, or a partition more
    // than the 3 s a one-node crash should cost, is kept too: it is a delay to explain.
    boolean slow = elections >= 3 || (oneNodeCrashed && longestGap > CRASH_GAP_GOAL.toMillis());
    if (!violations.isEmpty()
        || !actions.isEmpty()
        || slow
        || Boolean.getBoolean("brook.faults.keepLogs")) {
      keepLogs(out.resolve("failures").resolve(Integer.toString(cycle)), started, record);
    }
    if (!violations.isEmpty()) {
      keepData(out.resolve("failures").resolve(Integer.toString(cycle)), topic);
    }
    System.out.println("cycle " + record.toJson());
    return record;
  }

  /**
   * The Raft term of the controller quorum's leader, which each election raises, or -1 if no node
   * answers: the difference over a cycle counts its elections (a quorum that keeps electing leaders
   * commits little, whatever the checkers find).
   */
  private static long raftLeaderEpoch() {
    try (Admin admin = FaultScenario.admin(cluster.bootstrapServers())) {
      return admin.describeMetadataQuorum().quorumInfo().get(15, TimeUnit.SECONDS).leaderEpoch();
    } catch (Exception e) {
      return -1;
    }
  }

  /** Copies the node logs written during the cycle and the cycle's record. */
  private static void keepLogs(Path kept, long sinceMillis, CycleRecord record) throws IOException {
    Files.createDirectories(kept);
    try (var files = Files.list(dir)) {
      for (Path log : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
        if (Files.getLastModifiedTime(log).toMillis() >= sinceMillis) {
          Files.copy(log, kept.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    Files.writeString(kept.resolve("cycle.json"), record.toJson() + "\n");
  }

  /**
   * Zips, per node, the log directories of the cycle's topics and of the internal topics (offsets,
   * transaction and share-group state), as they are after the checks: what a violation is diagnosed
   * from once the campaign's directory is gone. The nodes keep running, so a segment may be caught
   * mid-write; that is fine for reading.
   */
  private static void keepData(Path kept, String topic) {
    try (var nodes = Files.list(dir)) {
      // A node's log directory is data-<id>; its remote caches beside it (data-<id>-remote-...)
      // hold nothing to diagnose from.
      for (Path data :
          nodes.filter(d -> d.getFileName().toString().matches("data-\\d+")).toList()) {
        Path zip = kept.resolve(data.getFileName() + ".zip");
        try (var out = new java.util.zip.ZipOutputStream(Files.newOutputStream(zip));
            var files = Files.walk(data)) {
          for (Path file : files.filter(Files::isRegularFile).toList()) {
            Path relative = data.relativize(file);
            String partitionDir = relative.getName(0).toString();
            if (!partitionDir.startsWith(topic + "-") && !partitionDir.startsWith("__")) {
              continue;
            }
            // Opened first: a segment deleted meanwhile is skipped, one deleted later still reads.
            try (var in = Files.newInputStream(file)) {
              out.putNextEntry(new java.util.zip.ZipEntry(relative.toString()));
              in.transferTo(out);
              out.closeEntry();
            } catch (java.nio.file.NoSuchFileException gone) {
              // Deleted by retention or compaction since the walk listed it.
            }
          }
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      System.out.println("Could not keep the data of " + topic + ": " + e);
    }
  }

  /** Deletes a passed cycle's topics, so that thousands of cycles do not pile up partitions. */
  private static void deleteTopics(String prefix) {
    try (var admin = FaultScenario.admin(cluster.bootstrapServers())) {
      List<String> mine =
          admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
              .filter(t -> t.equals(prefix) || t.startsWith(prefix + "-"))
              .toList();
      admin.deleteTopics(mine).all().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.out.println("Could not delete the topics of " + prefix + ": " + e);
    }
  }
}
