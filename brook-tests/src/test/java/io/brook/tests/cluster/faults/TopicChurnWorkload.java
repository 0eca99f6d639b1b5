package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterClients;
import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Topic create/delete churn under faults: a thread creates topics of 1-3 partitions (replication
 * factor 2, so that creation can succeed with a node down) and deletes each again soon after.
 * Requests that fail or time out during a fault are expected; their outcome is unknown. The check,
 * after recovery: every broker serves the same metadata, every topic whose creation succeeded and
 * whose deletion was never attempted is served, and no topic whose deletion succeeded is.
 */
final class TopicChurnWorkload implements CampaignWorkload {
  private final ClusterHarness cluster;
  private final Set<String> created = new HashSet<>();
  private final Set<String> deleted = new HashSet<>();
  private final Set<String> deleteAttempted = new HashSet<>();
  private Admin admin;
  private String prefix;
  private Thread thread;
  private volatile boolean stopping;

  TopicChurnWorkload(ClusterHarness cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "churn";
  }

  @Override
  public void start(String bootstrap, String prefix) {
    this.prefix = prefix + "-churn-";
    admin = FaultScenario.admin(bootstrap);
    thread = new Thread(this::run, "topic-churn");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    int n = 0;
    List<String> live = new ArrayList<>();
    while (!stopping) {
      String topic = prefix + n;
      try {
        admin
            .createTopics(List.of(new NewTopic(topic, 1 + n % 3, (short) 2)))
            .all()
            .get(15, TimeUnit.SECONDS);
        synchronized (this) {
          created.add(topic);
        }
        live.add(topic);
      } catch (Exception e) {
        // Unknown outcome during a fault; the check does not count on it.
      }
      n++;
      if (live.size() > 3 || (n % 2 == 0 && !live.isEmpty())) {
        String victim = live.remove(0);
        synchronized (this) {
          deleteAttempted.add(victim);
        }
        try {
          admin.deleteTopics(List.of(victim)).all().get(15, TimeUnit.SECONDS);
          synchronized (this) {
            deleted.add(victim);
          }
        } catch (Exception e) {
          // Unknown outcome, as above.
        }
      }
      try {
        TimeUnit.MILLISECONDS.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public Result finish() throws Exception {
    stopping = true;
    thread.interrupt();
    thread.join(60_000);
    List<String> violations = new ArrayList<>();
    List<String> brokers = cluster.brokers().stream().map(Node::bootstrap).toList();
    synchronized (this) {
      try {
        ClusterClients.awaitSameServed(
            brokers,
            Duration.ofSeconds(60),
            served -> {
              Set<String> topics = new HashSet<>(served.topics());
              for (String t : created) {
                if (!deleteAttempted.contains(t) && !topics.contains(t)) {
                  throw new AssertionError("created " + t + " is not served");
                }
              }
              for (String t : deleted) {
                if (topics.contains(t)) {
                  throw new AssertionError("deleted " + t + " is still served");
                }
              }
            });
      } catch (AssertionError | RuntimeException e) {
        violations.add("brokers did not converge on the topics: " + e.getMessage());
      }
      return new Result(created.size() + deleted.size(), violations);
    }
  }

  @Override
  public void close() {
    stopping = true;
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
  }
}
