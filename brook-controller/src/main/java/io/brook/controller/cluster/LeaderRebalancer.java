package io.brook.controller.cluster;

import io.brook.controller.state.ClusterController;
import io.brook.metadata.quorum.MetadataQuorum;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code auto.leader.rebalance.enable}: run every {@code leader.imbalance.check.interval.seconds}
 * on every controller, acting only on the active one: when some partition is not led by its
 * preferred replica although that replica could lead, one preferred-leader election for all
 * partitions puts the leaders back where placement spread them.
 */
public final class LeaderRebalancer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(LeaderRebalancer.class);

  private final MetadataQuorum quorum;
  private final ClusterController controller;

  public LeaderRebalancer(MetadataQuorum quorum, ClusterController controller) {
    this.quorum = quorum;
    this.controller = controller;
  }

  @Override
  public void run() {
    if (!quorum.isActiveController() || !controller.leadersImbalanced()) {
      return;
    }
    quorum
        .submitAsync(image -> controller.electPreferredLeaders(Optional.empty()))
        .whenComplete(
            (results, failure) -> {
              if (failure != null) {
                log.warn("Preferred leader election failed error={}", failure.toString());
              } else {
                log.info("Preferred leader election moved leaders of topics={}", results.keySet());
              }
            });
  }
}
