package io.brook.server;

import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ScramControl;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.record.UserScramCredentialRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles a node's cluster id with its metadata quorum at start-up. The id lives in the metadata
 * log (a {@code ClusterIdRecord} the first active controller writes: the id its node was formatted
 * with, or a new random one) so every node of a cluster agrees on it whatever their configs. A node
 * adopts it into {@code meta.properties} on first start; on a later start a node whose recorded id
 * differs is refused: its data belongs to another cluster.
 */
final class ClusterIdResolver {
  private static final Logger log = LoggerFactory.getLogger(ClusterIdResolver.class);

  /** How often a controller checks whether it has become active while no id is recorded. */
  private static final long POLL_MS = 5;

  private ClusterIdResolver() {}

  /**
   * Waits until the quorum's image holds the cluster id (writing it when this node is the first
   * active controller), checks it against {@code meta.properties} and records it there.
   *
   * @param controller this node's controller logic, or null on a broker-only node (it only reads)
   * @param timeoutMs how long to wait for the quorum ({@code
   *     initial.broker.registration.timeout.ms})
   * @return the cluster id
   * @throws IllegalStateException if the ids differ, or the quorum recorded none in time
   */
  static String resolve(
      List<Path> logDirs,
      int nodeId,
      MetadataQuorum quorum,
      ClusterController controller,
      long timeoutMs,
      List<UserScramCredentialRecord> bootstrapCredentials)
      throws IOException {
    Optional<String> stored = MetaProperties.storedClusterId(logDirs, nodeId);
    String proposed = stored.orElseGet(() -> Uuid.randomUuid().toString());
    CompletableFuture<String> recorded = new CompletableFuture<>();
    quorum.addListener(image -> image.clusterId().ifPresent(recorded::complete));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!recorded.isDone()) {
      if (controller != null && quorum.isActiveController()) {
        try {
          quorum.submit(
              image ->
                  ScramControl.withBootstrap(
                      controller.initializeClusterId(proposed), bootstrapCredentials));
        } catch (RuntimeException e) {
          // Leadership moved meanwhile: the next active controller writes it.
          log.debug("Cluster id not written yet error={}", e.toString());
        }
      }
      long remainingNanos = deadline - System.nanoTime();
      if (remainingNanos <= 0) {
        throw new IllegalStateException(
            "the metadata quorum recorded no cluster id within "
                + timeoutMs
                + " ms (initial.broker.registration.timeout.ms); is a majority of"
                + " controller.quorum.voters running?");
      }
      await(recorded, Math.min(POLL_MS, TimeUnit.NANOSECONDS.toMillis(remainingNanos) + 1));
    }
    String clusterId = recorded.join();
    if (stored.isPresent() && !stored.get().equals(clusterId)) {
      throw new IllegalStateException(
          "meta.properties in "
              + logDirs
              + " has cluster.id="
              + stored.get()
              + " but the metadata quorum's cluster id is "
              + clusterId
              + ": this node's data belongs to another cluster. Use the log.dirs and"
              + " controller.quorum.voters of that cluster, or empty log.dirs to join this one");
    }
    MetaProperties.adopt(logDirs, nodeId, clusterId);
    return clusterId;
  }

  private static void await(CompletableFuture<String> recorded, long ms) {
    try {
      recorded.get(ms, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // Not yet: look again.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the cluster id", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }
}
