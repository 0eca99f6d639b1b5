package io.brook.broker.share;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where a share group starts on a partition it has no state for: Kafka's group config {@code
 * share.auto.offset.reset}, {@code latest}, {@code earliest} or {@code by_duration:<ISO-8601
 * duration>} (the first record at most that long ago).
 *
 * @param kind which of the three
 * @param duration how far back for {@code by_duration}, else null
 */
public record ShareAutoOffsetReset(Kind kind, Duration duration) {
  /** The three strategies. */
  public enum Kind {
    LATEST,
    EARLIEST,
    BY_DURATION
  }

  public static final ShareAutoOffsetReset LATEST = new ShareAutoOffsetReset(Kind.LATEST, null);
  public static final ShareAutoOffsetReset EARLIEST = new ShareAutoOffsetReset(Kind.EARLIEST, null);

  private static final String BY_DURATION = "by_duration:";

  /**
   * Parses a value as Kafka does (case does not matter).
   *
   * @throws ConfigException naming {@code name} when the value is none of the three, or its
   *     duration is not ISO-8601 or negative
   */
  public static ShareAutoOffsetReset parse(String name, String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("latest")) {
      return LATEST;
    }
    if (v.equals("earliest")) {
      return EARLIEST;
    }
    if (v.startsWith(BY_DURATION)) {
      String text = value.trim().substring(BY_DURATION.length()).trim();
      Duration duration;
      try {
        duration = Duration.parse(text);
      } catch (DateTimeParseException e) {
        throw new ConfigException(
            name, value, "Unable to parse duration string in by_duration (ISO-8601, PnDTnHnMn.nS)");
      }
      if (duration.isNegative()) {
        throw new ConfigException(name, value, "Negative duration is not allowed");
      }
      return new ShareAutoOffsetReset(Kind.BY_DURATION, duration);
    }
    throw new ConfigException(
        name, value, "Invalid value: expected latest, earliest or by_duration:<ISO-8601 duration>");
  }

  /** The {@link ConfigDef} check of the value. */
  public static final ConfigDef.Validator VALIDATOR =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          parse(name, (String) value);
        }

        @Override
        public String toString() {
          return "[latest, earliest, by_duration:PnDTnHnMn.nS]";
        }
      };
}
