package io.brook.storage.log;

/** {@code compression.type}: the codec the broker stores batches with. */
public enum TopicCompression {
  /** Keep whatever codec the producer used. */
  PRODUCER("producer"),
  UNCOMPRESSED("uncompressed"),
  GZIP("gzip"),
  SNAPPY("snappy"),
  LZ4("lz4"),
  ZSTD("zstd");

  private final String configValue;

  TopicCompression(String configValue) {
    this.configValue = configValue;
  }

  /** The value as written in {@code compression.type}. */
  public String configValue() {
    return configValue;
  }

  /** Parses a {@code compression.type} value, case-insensitively. */
  public static TopicCompression forConfigValue(String value) {
    for (TopicCompression c : values()) {
      if (c.configValue.equalsIgnoreCase(value.trim())) {
        return c;
      }
    }
    throw new IllegalArgumentException("Unknown compression.type: " + value);
  }
}
