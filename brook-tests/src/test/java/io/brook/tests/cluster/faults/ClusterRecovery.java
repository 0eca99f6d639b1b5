package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterClients;
import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import io.brook.tests.cluster.ServedMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What the campaign does after every cycle, so that the next one starts on a whole cluster and is
 * not charged with what the last one left behind: heal every link, resume every node, restart every
 * node whose process exited, and wait (bounded) until every broker serves the same metadata with
 * every broker registered and unfenced. A node that is not, although its process runs (shut down
 * internally, stuck, never registered again), is then killed, after a thread dump, and restarted on
 * its data. Every restart is an {@link Action} in the cycle's record: a node that needed one may
 * itself show a bug, so the campaign keeps that cycle's logs as it keeps a failing cycle's.
 */
final class ClusterRecovery {
  /** How long the cluster may take to settle before a node that has not is restarted. */
  static final Duration SETTLE = Duration.ofMinutes(2);

  /** How many looks, a second apart, a node must fail in every one of to be restarted. */
  private static final int LOOKS = 5;

  /**
   * One thing the recovery did, or found and could not do anything about.
   *
   * @param node the node, or 0 for the cluster as a whole
   * @param reason what was wrong with it
   * @param action what the recovery did about it
   * @param millis how long that took
   */
  record Action(int node, String reason, String action, long millis) {
    Map<String, Object> toMap() {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("node", node);
      map.put("reason", reason);
      map.put("action", action);
      map.put("ms", millis);
      return map;
    }
  }

  private final ClusterHarness cluster;
  private final Duration settle;

  ClusterRecovery(ClusterHarness cluster, Duration settle) {
    this.cluster = cluster;
    this.settle = settle;
  }

  /**
   * Brings the cluster back whole, as described above, and returns what that took beyond healing
   * and resuming (which every cycle needs and which say nothing about Brook): empty if every node
   * was running and the cluster settled by itself.
   */
  List<Action> recover() {
    List<Action> actions = new ArrayList<>();
    if (cluster.inNamespaces()) {
      cluster.healAll();
    }
    List<Node> exited = new ArrayList<>();
    for (Node node : cluster.nodes()) {
      if (!node.isAlive()) {
        exited.add(node);
        continue;
      }
      try {
        node.resume();
      } catch (AssertionError e) {
        // It exited between the two calls.
        exited.add(node);
      }
    }
    if (!exited.isEmpty()) {
      actions.addAll(restart(exited, node -> "its process had exited with status " + status(node)));
    }
    Optional<String> unsettled = awaitSettled(settle);
    if (unsettled.isEmpty()) {
      return actions;
    }
    Map<Integer, String> stuck = persistentlyUnhealthy();
    if (stuck.isEmpty()) {
      actions.add(
          new Action(
              0,
              "the cluster did not settle within "
                  + settle
                  + " and no node stood out: "
                  + unsettled.get(),
              "none",
              0));
      return actions;
    }
    List<Node> nodes = stuck.keySet().stream().map(cluster::node).toList();
    for (Node node : nodes) {
      if (node.isAlive()) {
        try {
          node.dumpThreads(Duration.ofSeconds(10));
        } catch (AssertionError exitedMeanwhile) {
          // Nothing to dump; the kill below finds it gone too.
        }
        try {
          node.kill();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    actions.addAll(restart(nodes, node -> stuck.get(node.id())));
    awaitSettled(settle)
        .ifPresent(
            still ->
                actions.add(
                    new Action(
                        0,
                        "the cluster did not settle within "
                            + settle
                            + " after the restart: "
                            + still,
                        "none",
                        0)));
    return actions;
  }

  private static String status(Node node) {
    try {
      return Integer.toString(node.awaitExit(Duration.ZERO));
    } catch (InterruptedException | AssertionError e) {
      return "unknown";
    }
  }

  /** Starts the stopped nodes together, one action each; a restart that fails says so. */
  private List<Action> restart(List<Node> nodes, Function<Node, String> reason) {
    Map<Node, String> reasons = new LinkedHashMap<>();
    nodes.forEach(n -> reasons.put(n, reason.apply(n)));
    long start = System.nanoTime();
    String action = "restarted on its data";
    try {
      cluster.restartTogether(nodes);
    } catch (Exception | AssertionError e) {
      action = "restart failed: " + String.valueOf(e).lines().findFirst().orElse("");
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    List<Action> actions = new ArrayList<>();
    for (Map.Entry<Node, String> e : reasons.entrySet()) {
      actions.add(new Action(e.getKey().id(), e.getValue(), action, millis));
      System.out.printf("recovery: node %d, %s: %s%n", e.getKey().id(), e.getValue(), action);
    }
    return actions;
  }

  /**
   * Waits until every broker serves the same metadata, listing every broker as unfenced; empty if
   * it does within {@code within}, else why not. A broker just back from a fault serves its stale
   * view for a while, and a cycle started then would fail to create its topics with three replicas:
   * a failure of the cycle before, not its own.
   */
  Optional<String> awaitSettled(Duration within) {
    List<String> brokers = cluster.brokers().stream().map(Node::bootstrap).toList();
    try {
      ClusterClients.awaitSameServed(
          brokers,
          within,
          served -> {
            if (served.brokers().size() != brokers.size()) {
              throw new AssertionError("unfenced brokers " + served.brokers().keySet());
            }
          });
      return Optional.empty();
    } catch (AssertionError | RuntimeException e) {
      return Optional.of(String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
    }
  }

  /** The nodes {@link #unhealthy} finds in each of {@link #LOOKS} looks, a second apart. */
  private Map<Integer, String> persistentlyUnhealthy() {
    Map<Integer, String> stuck = null;
    for (int look = 0; look < LOOKS && (stuck == null || !stuck.isEmpty()); look++) {
      if (look > 0) {
        try {
          TimeUnit.SECONDS.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      Map<Integer, ServedMetadata> views = new TreeMap<>();
      Map<Integer, String> errors = new TreeMap<>();
      for (Node node : cluster.brokers()) {
        try {
          views.put(node.id(), ServedMetadata.from(node.bootstrap()));
        } catch (RuntimeException e) {
          errors.put(node.id(), String.valueOf(e.getCause() == null ? e : e.getCause()));
        }
      }
      Map<Integer, String> now = unhealthy(views, errors);
      if (stuck == null) {
        stuck = now;
      } else {
        stuck.keySet().retainAll(now.keySet());
      }
    }
    return stuck;
  }

  /**
   * The nodes that are not a whole part of the cluster, with why, judged by what each broker serves
   * ({@code views}; {@code errors} for those that could not be asked): a node that cannot be asked,
   * a node that serves other metadata than a majority of the nodes, and a node that majority does
   * not list as a registered, unfenced broker. Without a majority every node is suspect.
   */
  static Map<Integer, String> unhealthy(
      Map<Integer, ServedMetadata> views, Map<Integer, String> errors) {
    Map<Integer, String> bad = new TreeMap<>();
    errors.forEach((id, error) -> bad.put(id, "it serves no metadata: " + error));
    int nodes = views.size() + errors.size();
    Optional<ServedMetadata> majority =
        views.values().stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
            .entrySet()
            .stream()
            .filter(e -> e.getValue() * 2 > nodes)
            .map(Map.Entry::getKey)
            .findFirst();
    if (majority.isEmpty()) {
      views.forEach(
          (id, view) ->
              bad.put(
                  id,
                  "no majority of the nodes serves the same metadata; it lists brokers "
                      + view.brokers().keySet()));
      return bad;
    }
    ServedMetadata agreed = majority.get();
    views.forEach(
        (id, view) -> {
          if (!view.equals(agreed)) {
            bad.put(id, "it serves other metadata than the majority: " + difference(view, agreed));
          } else if (!agreed.brokers().containsKey(id)) {
            bad.put(
                id,
                "it is not a registered, unfenced broker: the majority lists brokers "
                    + agreed.brokers().keySet());
          }
        });
    return bad;
  }

  /** How {@code view} differs from {@code agreed}, briefly. */
  private static String difference(ServedMetadata view, ServedMetadata agreed) {
    List<String> parts = new ArrayList<>();
    if (!view.brokers().keySet().equals(agreed.brokers().keySet())) {
      parts.add("brokers " + view.brokers().keySet() + " instead of " + agreed.brokers().keySet());
    }
    if (view.controllerId() != agreed.controllerId()) {
      parts.add("controller " + view.controllerId() + " instead of " + agreed.controllerId());
    }
    List<String> partitions =
        agreed.partitions().keySet().stream()
            .filter(tp -> !agreed.partitions().get(tp).equals(view.partitions().get(tp)))
            .toList();
    long extra =
        view.partitions().keySet().stream()
            .filter(tp -> !agreed.partitions().containsKey(tp))
            .count();
    if (!partitions.isEmpty()) {
      String tp = partitions.get(0);
      parts.add(
          partitions.size()
              + " partitions differ or are missing, e.g. "
              + tp
              + " "
              + view.partitions().get(tp)
              + " instead of "
              + agreed.partitions().get(tp));
    }
    if (extra > 0) {
      parts.add(extra + " partitions the majority does not serve");
    }
    if (!Objects.equals(view.clusterId(), agreed.clusterId())) {
      parts.add("cluster id " + view.clusterId());
    }
    return String.join("; ", parts);
  }
}
