package io.brook.protocol;

import java.util.Map;

/**
 * The feature levels ApiVersions advertises besides {@code kraft.version}: what this broker
 * supports (levels 0 to the given maximum) and what the cluster finalized, with the epoch of that
 * finalization (clients re-read the levels when it grows).
 *
 * @param supported the highest supported level by feature name
 * @param finalized the finalized level by feature name (features at level 0 are absent)
 * @param epoch the finalized levels' epoch: the metadata offset they were read at, never negative
 */
public record FeatureLevels(
    Map<String, Short> supported, Map<String, Short> finalized, long epoch) {
  /** No feature levels besides {@code kraft.version}. */
  public static final FeatureLevels NONE = new FeatureLevels(Map.of(), Map.of(), 0);

  public FeatureLevels {
    supported = Map.copyOf(supported);
    finalized = Map.copyOf(finalized);
    epoch = Math.max(0, epoch);
  }
}
