package io.brook.coordinator.group.assignor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The server-side assignors a coordinator offers ({@code group.consumer.assignors}). */
public final class Assignors {
  private final Map<String, PartitionAssignor> byName = new LinkedHashMap<>();

  /**
   * @param names the configured assignor names; the first is the default
   * @throws IllegalArgumentException for an unknown name or an empty list
   */
  public Assignors(List<String> names) {
    for (String name : names) {
      byName.put(name, create(name));
    }
    if (byName.isEmpty()) {
      throw new IllegalArgumentException(
          "group.consumer.assignors must name at least one assignor");
    }
  }

  private static PartitionAssignor create(String name) {
    return switch (name) {
      case UniformAssignor.NAME -> new UniformAssignor();
      case RangeAssignor.NAME -> new RangeAssignor();
      default -> throw new IllegalArgumentException("unknown consumer group assignor " + name);
    };
  }

  public Optional<PartitionAssignor> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The assignor used when no member names one. */
  public PartitionAssignor defaultAssignor() {
    return byName.values().iterator().next();
  }
}
