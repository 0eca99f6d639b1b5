package io.brook.broker.quota;

import io.brook.metadata.image.MetadataImage;
import java.util.Map;

/** The user and client-id quotas of the latest metadata image, parsed once per change. */
final class AppliedQuotas {
  private volatile Map<Map<String, String>, Map<String, Double>> applied = Map.of();
  private volatile QuotaEntities entities = QuotaEntities.EMPTY;

  /**
   * Takes the quotas of a new image; cheap when they did not change.
   *
   * @return whether they changed
   */
  boolean apply(MetadataImage image) {
    Map<Map<String, String>, Map<String, Double>> next = image.clientQuotas();
    if (next == applied) {
      return false;
    }
    synchronized (this) {
      applied = next;
      entities = QuotaEntities.of(next);
    }
    return true;
  }

  QuotaEntities entities() {
    return entities;
  }
}
