package io.brook.controller.cluster;

import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.metadata.quorum.MetadataQuorum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run periodically on every controller; acts only on the active one: fences each broker whose
 * session expired, each with one batch of records (its fence record plus every ISR and leader
 * change). A node that just became active starts every session afresh first.
 */
public final class BrokerFencer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(BrokerFencer.class);

  private final MetadataQuorum quorum;
  private final ClusterController controller;
  private final BrokerSessions sessions;
  private boolean wasActive;

  public BrokerFencer(
      MetadataQuorum quorum, ClusterController controller, BrokerSessions sessions) {
    this.quorum = quorum;
    this.controller = controller;
    this.sessions = sessions;
  }

  @Override
  public void run() {
    if (!quorum.isActiveController()) {
      wasActive = false;
      return;
    }
    if (!wasActive) {
      sessions.reset();
      wasActive = true;
    }
    for (int brokerId : sessions.expired(quorum.image())) {
      log.atInfo()
          .setMessage("Fencing broker after session timeout")
          .addKeyValue("brokerId", brokerId)
          .log();
      quorum
          .submitAsync(image -> controller.fenceBroker(brokerId))
          .whenComplete(
              (error, failure) -> {
                if (failure != null) {
                  log.warn("Fencing failed brokerId={} error={}", brokerId, failure.toString());
                }
              });
    }
  }
}
