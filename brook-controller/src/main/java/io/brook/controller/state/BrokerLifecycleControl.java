package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The cluster side of a broker's life, as in KRaft: a broker registers fenced, is unfenced by a
 * heartbeat once its metadata has caught up with its own registration, and asks to be fenced before
 * it stops (controlled shutdown), which moves its leaderships away in one batch.
 */
final class BrokerLifecycleControl {
  private BrokerLifecycleControl() {}

  /**
   * Registers a broker fenced. A retry of a registration that already succeeded (same incarnation,
   * endpoints and rack) returns the existing epoch without records.
   *
   * <p>{@code previousBrokerEpoch} is the epoch the broker's last process had when it shut down
   * cleanly, or -1 (KIP-966's clean shutdown signal). When it is not the epoch of the registration
   * being replaced, the last process stopped uncleanly: its log may lack records it acknowledged
   * (unflushed writes), so the broker leaves every ELR.
   */
  static ControllerResult<Long> registerFenced(
      MetadataImage image,
      ControllerConfig config,
      int brokerId,
      Uuid incarnationId,
      List<BrokerEndpoint> endpoints,
      Optional<String> rack,
      long previousBrokerEpoch) {
    if (brokerId < 0) {
      throw new MetadataException(
          new ApiError(Errors.INVALID_REQUEST, "Invalid broker id " + brokerId));
    }
    BrokerRegistration existing = image.brokers().get(brokerId);
    if (existing != null
        && existing.incarnationId().equals(incarnationId)
        && existing.endpoints().equals(endpoints)
        && existing.rack().equals(rack)) {
      return ControllerResult.of(existing.epoch());
    }
    long epoch = image.offset() + 1;
    List<MetadataRecord> records = new ArrayList<>();
    boolean uncleanShutdown = existing != null && existing.epoch() != previousBrokerEpoch;
    if (existing != null && (!existing.fenced() || uncleanShutdown)) {
      // A new incarnation replaces a live one (a restart faster than the session timeout): the
      // old process is gone, so its leaderships move now rather than after the timeout.
      records.addAll(
          BrokerControl.removeFromIsrs(image, config, brokerId, (t, p) -> true, uncleanShutdown));
      epoch = image.offset() + 1 + records.size();
    }
    records.add(new RegisterBrokerRecord(brokerId, incarnationId, epoch, endpoints, rack, true));
    return ControllerResult.of(records, epoch);
  }

  /**
   * One heartbeat.
   *
   * @param metadataOffset the offset of the broker's own metadata image
   * @param wantShutDown the broker is stopping and asks to lose its leaderships first
   */
  static ControllerResult<HeartbeatResult> heartbeat(
      MetadataImage image,
      ControllerConfig config,
      int brokerId,
      long brokerEpoch,
      long metadataOffset,
      boolean wantFence,
      boolean wantShutDown,
      BrokerFences fences) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null) {
      return ControllerResult.of(HeartbeatResult.error(Errors.BROKER_ID_NOT_REGISTERED));
    }
    if (broker.epoch() != brokerEpoch) {
      return ControllerResult.of(HeartbeatResult.error(Errors.STALE_BROKER_EPOCH));
    }
    if (wantShutDown || wantFence) {
      ControllerResult<ApiError> fence = BrokerControl.fenceBroker(image, config, brokerId);
      return ControllerResult.of(
          fence.records(), new HeartbeatResult(ApiError.NONE, true, wantShutDown));
    }
    // Unfenced only once it has seen its own registration, which holds every record committed
    // before it joined, and its own fence, which moved its leaderships: it never serves older
    // metadata as a leader.
    if (broker.fenced() && metadataOffset >= broker.epoch()) {
      long fence = fences.unfenceAfter(brokerId, image);
      if (metadataOffset < fence) {
        fences.logWait(brokerId, metadataOffset, fence);
      } else {
        ControllerResult<ApiError> unfence = BrokerControl.unfenceBroker(image, config, brokerId);
        return ControllerResult.of(
            unfence.records(), new HeartbeatResult(ApiError.NONE, false, false));
      }
    }
    return ControllerResult.of(new HeartbeatResult(ApiError.NONE, broker.fenced(), false));
  }

  /**
   * A broker reports replicas whose log directory failed (AssignReplicasToDirs naming that
   * directory, whose id its heartbeats list in {@code OfflineLogDirs}). Brook's metadata does not
   * record which directory holds each replica (Kafka's per-replica {@code directories}, KIP-858),
   * so the broker names them: in one batch each leaves the ISR (never emptying it) and each
   * leadership moves to another unfenced in-sync replica, or to none. The broker stays unfenced and
   * keeps serving its other directories.
   *
   * @param partitions partition indexes by topic id
   */
  static ControllerResult<ApiError> replicasOffline(
      MetadataImage image,
      ControllerConfig config,
      int brokerId,
      long brokerEpoch,
      Map<Uuid, Set<Integer>> partitions) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null) {
      return ControllerResult.of(ApiError.of(Errors.BROKER_ID_NOT_REGISTERED));
    }
    if (broker.epoch() != brokerEpoch) {
      return ControllerResult.of(ApiError.of(Errors.STALE_BROKER_EPOCH));
    }
    List<MetadataRecord> records =
        BrokerControl.removeFromIsrs(
            image,
            config,
            brokerId,
            (topicId, partition) -> partitions.getOrDefault(topicId, Set.of()).contains(partition),
            // The replicas' log is gone: they cannot be eligible leaders.
            true);
    return ControllerResult.of(records, ApiError.NONE);
  }
}
