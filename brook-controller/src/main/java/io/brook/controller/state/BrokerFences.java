package io.brook.controller.state;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset of the metadata image in which each broker was last seen fenced, as this controller
 * applied the images. A fenced broker is unfenced only once its own metadata reaches that offset:
 * it has then applied the batch that fenced it and moved its leaderships, so it no longer serves as
 * the leader or coordinator of what it lost. (Kafka unfences a broker once its metadata reaches its
 * registration, so a broker that was fenced while paused and resumes is unfenced at once and, until
 * it catches up, still believes in its old leaderships.)
 *
 * <p>Not part of the image: a controller that starts or takes over learns the brokers already
 * fenced from the first image it applies, which is at or after their fence, so it asks at least as
 * much. Thread-safe: images arrive on the publisher's thread, heartbeats read it on the quorum's.
 */
public final class BrokerFences {
  private static final Logger log = LoggerFactory.getLogger(BrokerFences.class);

  private final Map<Integer, Long> fencedAt = new ConcurrentHashMap<>();

  /** The fence offset each broker was last told to wait for in the log, to say it once. */
  private final Map<Integer, Long> waitLogged = new ConcurrentHashMap<>();

  private MetadataImage last;

  /** Records the brokers that {@code image} shows fenced and the previous image did not. */
  public synchronized void onImage(MetadataImage image) {
    for (BrokerRegistration broker : image.brokers().values()) {
      if (!broker.fenced()) {
        continue;
      }
      BrokerRegistration before = last == null ? null : last.brokers().get(broker.id());
      if (before == null || !before.fenced() || before.epoch() != broker.epoch()) {
        fencedAt.put(broker.id(), image.offset());
      }
    }
    fencedAt.keySet().removeIf(id -> !image.brokers().containsKey(id));
    last = image;
  }

  /**
   * The offset a fenced broker's metadata must reach before it is unfenced: where this controller
   * saw it fenced, or, if it has not applied that image yet, {@code current}'s offset (the broker
   * is fenced there, so its fence is at or before it).
   */
  public long unfenceAfter(int brokerId, MetadataImage current) {
    Long at = fencedAt.get(brokerId);
    return at == null || at > current.offset() ? current.offset() : at;
  }

  /**
   * Logs, once per fence, that a broker asking to be unfenced stays fenced because its metadata (at
   * {@code metadataOffset}) has not reached {@code fence}: a broker whose metadata stopped
   * following shows here rather than as a broker that is silently never unfenced.
   */
  void logWait(int brokerId, long metadataOffset, long fence) {
    Long logged = waitLogged.put(brokerId, fence);
    if (logged == null || logged != fence) {
      log.info(
          "Broker stays fenced until its metadata reaches its fence brokerId={}"
              + " metadataOffset={} fenceOffset={}",
          brokerId,
          metadataOffset,
          fence);
    }
  }
}
