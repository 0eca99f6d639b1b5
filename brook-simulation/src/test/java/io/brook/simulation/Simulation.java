package io.brook.simulation;

import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.storage.log.LogConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;

/**
 * One seeded run: three brokers and a three-node controller quorum on one {@link MockTime} and one
 * {@link ManualScheduler} (the single event queue), two topics of three partitions, a producer and
 * consumers, faults (seeded, or a {@link Scenario}'s), and the {@link Invariants} checked after
 * every event. Everything random comes from the seed and nothing reads the wall clock or starts a
 * thread, so a seed replays exactly (same {@link Trace} hash).
 */
final class Simulation {
  static final List<String> TOPICS = List.of("a", "b");
  static final int PARTITIONS_PER_TOPIC = 3;
  static final List<Integer> BROKER_IDS = List.of(1, 2, 3);

  /** Every partition of the run, topic by topic. */
  static final List<TopicPartition> PARTITIONS =
      TOPICS.stream()
          .flatMap(
              t -> IntStream.range(0, PARTITIONS_PER_TOPIC).mapToObj(p -> new TopicPartition(t, p)))
          .toList();

  /** Simulated time of a run: faults until then, then a quiet period to heal. */
  static final long FAULTS_UNTIL_MS = 2_500;

  static final long PRODUCE_UNTIL_MS = 3_000;
  static final long END_MS = 4_000;
  static final long SESSION_TIMEOUT_MS = 600;

  private final long seed;
  private final MockTime time = new MockTime();
  private final ManualScheduler scheduler = new ManualScheduler(time);
  private final Trace trace = new Trace();
  private final Random random;
  private final LogConfig logConfig;
  private final SimulatedNetwork network;
  private final ControllerQuorum controllers;
  private final List<SimulatedBroker> brokers = new ArrayList<>();
  private final Invariants invariants;
  private final Workload workload;
  private final FaultInjector faults;
  private final Map<String, Uuid> topicIds = new LinkedHashMap<>();

  /** The outcome of a run. */
  record Result(
      long seed,
      long traceHash,
      long events,
      int acked,
      int retries,
      long consumed,
      int crashes,
      int lossyCrashes,
      int cleanShutdowns,
      int cleanRestarts,
      int diskFailures,
      int lossyDiskFailures,
      int controllerCrashes,
      int elections,
      int pauses,
      int partitions,
      int oneWayCuts,
      String failure,
      String traceTail) {
    boolean failed() {
      return failure != null;
    }
  }

  /**
   * A scripted run instead of the seeded faults: the network's delays still come from the seed, but
   * nothing is lost, the faults are the scenario's, and it checks its own properties at the end
   * (with {@link Invariants#fail}).
   */
  interface Scenario {
    /** Simulated time at which the run ends (produces stop a second before). */
    long endMs();

    /** Called once the topics exist and the workload runs: schedules the scenario's faults. */
    void start(Simulation simulation);

    /** Called at the end of the run: checks the scenario's properties. */
    void finish(Simulation simulation);
  }

  private final Scenario scenario;
  private final long endMs;

  private Simulation(long seed, Path dir, Scenario scenario) {
    this.scenario = scenario;
    this.endMs = scenario == null ? END_MS : scenario.endMs();
    this.seed = seed;
    this.random = new Random(seed);
    int maxDelay = 1 + random.nextInt(30);
    double drawnLoss = random.nextInt(4) == 0 ? 0 : random.nextDouble() * 0.05;
    double loss = scenario == null ? drawnLoss : 0;
    // Kafka's default is to never fsync on the append path; some seeds fsync every few records,
    // so that a lossy crash keeps part of a log.
    long flushMessages = random.nextInt(3) == 0 ? Long.MAX_VALUE : 1 + random.nextInt(20);
    this.logConfig = LogConfig.builder().minInSyncReplicas(2).flushMessages(flushMessages).build();
    this.network = new SimulatedNetwork(this, scheduler, random, 1, maxDelay, loss);
    this.controllers =
        new ControllerQuorum(this, random, SESSION_TIMEOUT_MS, ControllerQuorum.FENCE_CHECK_MS);
    for (int id : BROKER_IDS) {
      brokers.add(new SimulatedBroker(this, id, dir.resolve("broker-" + id), random));
    }
    this.invariants = new Invariants(this, PARTITIONS);
    this.workload =
        new Workload(
            this,
            scenario == null ? 10 + random.nextInt(40) : 10,
            scenario == null ? PRODUCE_UNTIL_MS : endMs - 1_000);
    this.faults = new FaultInjector(this, random, FAULTS_UNTIL_MS);
    record(
        "seed "
            + seed
            + " maxDelayMs="
            + maxDelay
            + " loss="
            + loss
            + " flushMessages="
            + flushMessages);
  }

  /**
   * Where the runs keep their brokers' files: {@code /dev/shm} (a RAM-backed file system) where the
   * machine has one, else {@code fallback}; {@code -Dbrook.sim.tmpfs=false} forces {@code
   * fallback}. The brokers' storage code is the same on either (real files, real recovery); a disk
   * only makes the thousands of file creations and deletions of a seed run slower.
   */
  static Path filesParent(Path fallback) {
    Path shm = Path.of("/dev/shm");
    boolean tmpfs = Boolean.parseBoolean(System.getProperty("brook.sim.tmpfs", "true"));
    return tmpfs && Files.isDirectory(shm) && Files.isWritable(shm) ? shm : fallback;
  }

  /** Runs seed {@code seed} with its brokers' files under a fresh directory in {@code parent}. */
  static Result run(long seed, Path parent) {
    return run(seed, parent, null);
  }

  /** Runs {@code scenario} (or the seeded faults if null) with the network of {@code seed}. */
  static Result run(long seed, Path parent, Scenario scenario) {
    Path dir;
    try {
      dir = Files.createTempDirectory(parent, "sim-" + seed + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return new Simulation(seed, dir, scenario).run();
    } finally {
      deleteRecursively(dir);
    }
  }

  private Result run() {
    // The active controller sends every committed image to every broker.
    controllers.addListener(
        image -> {
          for (SimulatedBroker broker : brokers) {
            broker
                .process()
                .ifPresent(
                    p -> network.send(controllers.active(), p, "image", () -> p.onImage(image)));
          }
        });
    brokers.forEach(SimulatedBroker::start);
    try {
      // The brokers register and are unfenced over the network before the topic exists.
      while (controllers.image().brokers().values().stream().filter(b -> !b.fenced()).count()
          < BROKER_IDS.size()) {
        step();
      }
      for (int t = 0; t < TOPICS.size(); t++) {
        topicIds.put(TOPICS.get(t), controllers.createTopic(TOPICS.get(t), assignment(t)));
      }
      network.startLosing();
      workload.start();
      if (scenario == null) {
        faults.start();
      } else {
        scenario.start(this);
      }
      while (invariants.failure() == null && step()) {
        // each step runs the next due events and checks the invariants
      }
      if (scenario != null && invariants.failure() == null) {
        scenario.finish(this);
      }
    } catch (RuntimeException | AssertionError e) {
      invariants.fail("the run threw " + e);
    } finally {
      brokers.forEach(SimulatedBroker::stop);
    }
    return new Result(
        seed,
        trace.hash(),
        trace.events(),
        workload.acked().size(),
        workload.retries(),
        workload.consumed(),
        faults.crashes(),
        faults.lossyCrashes(),
        faults.cleanShutdowns(),
        faults.cleanRestarts(),
        faults.diskFailures(),
        faults.lossyDiskFailures(),
        faults.controllerCrashes(),
        controllers.elections(),
        faults.pauses(),
        faults.partitions(),
        faults.oneWayCuts(),
        invariants.failure(),
        trace.tail());
  }

  /** Moves the clock to the next due event and runs it; false once none is due by the end. */
  private boolean step() {
    long next = scheduler.nextDueMs();
    if (next < 0 || next > endMs) {
      if (topicIds.isEmpty()) {
        throw new IllegalStateException("the brokers did not register by the end of the run");
      }
      return false;
    }
    time.sleep(next - nowMs());
    afterEvent();
    return true;
  }

  // ---- for the parts of the simulation ----

  /** The settings of every log (every topic) in this run. */
  LogConfig logConfig() {
    return logConfig;
  }

  MockTime time() {
    return time;
  }

  ManualScheduler scheduler() {
    return scheduler;
  }

  long nowMs() {
    return time.nanoseconds() / 1_000_000;
  }

  SimulatedNetwork network() {
    return network;
  }

  ControllerQuorum controllers() {
    return controllers;
  }

  List<SimulatedBroker> brokers() {
    return brokers;
  }

  SimulatedBroker broker(int id) {
    return brokers.get(BROKER_IDS.indexOf(id));
  }

  Workload workload() {
    return workload;
  }

  Invariants invariants() {
    return invariants;
  }

  Uuid topicId(String topic) {
    return topicIds.get(topic);
  }

  /**
   * Every partition on all three brokers, the replica order (and so the preferred leader) turning
   * from one partition to the next, so leaders spread over the brokers.
   */
  private static Map<Integer, List<Integer>> assignment(int topicIndex) {
    Map<Integer, List<Integer>> replicas = new LinkedHashMap<>();
    for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < BROKER_IDS.size(); i++) {
        order.add(BROKER_IDS.get((topicIndex + p + i) % BROKER_IDS.size()));
      }
      replicas.put(p, order);
    }
    return replicas;
  }

  void record(String event) {
    trace.record(nowMs(), event);
  }

  /** After every event: the invariants. */
  void afterEvent() {
    invariants.check();
  }

  /** A follower's fetch to broker {@code leaderId}, and its answer back. */
  void sendFetch(
      BrokerProcess follower,
      int leaderId,
      FetchRequestData request,
      Consumer<FetchResponseData> onResponse) {
    broker(leaderId)
        .process()
        .ifPresent(
            leader ->
                network.call(
                    follower,
                    leader,
                    "fetch",
                    reply -> leader.handleFetch(request, reply),
                    onResponse));
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
