package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.FeatureLevelRecord;
import io.brook.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;

/**
 * The cluster features whose levels Brook finalizes in the metadata log, with the levels this
 * version supports, the levels a new cluster starts at, and Kafka's rules for UpdateFeatures.
 * {@code kraft.version} is not here: Brook's quorum is always dynamic, so it is fixed at 1.
 */
public final class FeatureControl {
  /** Kafka's transaction protocol feature (KIP-890, KIP-1022). */
  public static final String TRANSACTION_VERSION = "transaction.version";

  /**
   * Kafka's share group feature (KIP-932): at 1 or more the group coordinator serves share groups
   * and the partition leaders ShareFetch and ShareAcknowledge. Level 2 (Kafka 4.2+: renew
   * acknowledgements, dead-letter topics) is not supported yet.
   */
  public static final String SHARE_VERSION = "share.version";

  /** The highest level of each feature this version supports (the lowest is always 0). */
  public static final Map<String, Short> SUPPORTED =
      Map.of(TRANSACTION_VERSION, (short) 2, SHARE_VERSION, (short) 1);

  /**
   * Kafka 4.x's defaults for a new cluster: transaction protocol V2 and share groups on (Kafka 4.4
   * finalizes share.version 2; Brook its highest, 1).
   */
  private static final Map<String, Short> NEW_CLUSTER =
      new TreeMap<>(Map.of(TRANSACTION_VERSION, (short) 2, SHARE_VERSION, (short) 1));

  /** Kafka's UpdateFeatures upgrade types. */
  public enum UpgradeType {
    UPGRADE,
    SAFE_DOWNGRADE,
    UNSAFE_DOWNGRADE;

    /** Kafka's code (1, 2, 3); anything else is not a type. */
    public static UpgradeType fromCode(byte code) {
      return switch (code) {
        case 1 -> UPGRADE;
        case 2 -> SAFE_DOWNGRADE;
        case 3 -> UNSAFE_DOWNGRADE;
        default -> throw new IllegalArgumentException("unknown upgrade type " + code);
      };
    }
  }

  /** One requested change: the feature's new level ({@code < 1} removes it). */
  public record Update(String feature, short level, UpgradeType type) {}

  private FeatureControl() {}

  /** The records finalizing a new cluster's feature levels, in name order (deterministic). */
  public static List<MetadataRecord> newClusterRecords() {
    List<MetadataRecord> records = new ArrayList<>();
    NEW_CLUSTER.forEach((name, level) -> records.add(new FeatureLevelRecord(name, level)));
    return records;
  }

  /**
   * UpdateFeatures: each update is checked on its own (an unknown feature or unsupported level is
   * INVALID_UPDATE_VERSION; lowering a level needs a downgrade type, raising it an upgrade); the
   * levels change only if every update is valid and {@code validateOnly} is false, as in Kafka.
   * Transaction versions hold no state a lower level cannot read, so their downgrades are safe.
   *
   * @return each feature's result, in request order
   */
  public static ControllerResult<Map<String, ApiError>> update(
      MetadataImage image, List<Update> updates, boolean validateOnly) {
    Map<String, ApiError> results = new LinkedHashMap<>();
    List<MetadataRecord> records = new ArrayList<>();
    for (Update update : updates) {
      ApiError error = check(image, update);
      results.put(update.feature(), error);
      if (error.isSuccess()) {
        records.add(new FeatureLevelRecord(update.feature(), (short) Math.max(0, update.level())));
      }
    }
    boolean allValid = results.values().stream().allMatch(ApiError::isSuccess);
    return ControllerResult.of(allValid && !validateOnly ? records : List.of(), results);
  }

  private static ApiError check(MetadataImage image, Update update) {
    Short max = SUPPORTED.get(update.feature());
    if (max == null) {
      return new ApiError(
          Errors.INVALID_UPDATE_VERSION, "Feature " + update.feature() + " is not supported.");
    }
    short target = (short) Math.max(0, update.level());
    if (target > max) {
      return new ApiError(
          Errors.INVALID_UPDATE_VERSION,
          "Invalid update version "
              + target
              + " for feature "
              + update.feature()
              + ". Supported levels are 0 to "
              + max
              + ".");
    }
    short current = image.featureLevel(update.feature());
    if (target < current && update.type() == UpgradeType.UPGRADE) {
      return new ApiError(
          Errors.INVALID_UPDATE_VERSION,
          "Can't downgrade the version of "
              + update.feature()
              + " from "
              + current
              + " to "
              + target
              + " without setting the upgrade type to safe or unsafe downgrade.");
    }
    if (target > current && update.type() != UpgradeType.UPGRADE) {
      return new ApiError(
          Errors.INVALID_UPDATE_VERSION,
          "Can't upgrade "
              + update.feature()
              + " from "
              + current
              + " to "
              + target
              + " with a downgrade type.");
    }
    return ApiError.NONE;
  }
}
