package io.brook.coordinator.group.classic;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a classic group, named as Kafka names them on the wire.
 *
 * <pre>
 *            join                 all joined / rebalance timeout        leader's SyncGroup durable
 *   Empty ---------> PreparingRebalance ----------------------> CompletingRebalance -----------> Stable
 *     ^                 ^   |  no member left                          |                            |
 *     |                 |   +--------------> Empty                     | member change / timeout    |
 *     |                 +-------------------------------------------------------------------------+
 *   every state -----> Dead (group deleted)
 * </pre>
 */
public enum ClassicGroupState {
  EMPTY("Empty"),
  PREPARING_REBALANCE("PreparingRebalance"),
  COMPLETING_REBALANCE("CompletingRebalance"),
  STABLE("Stable"),
  DEAD("Dead");

  private final String wireName;

  ClassicGroupState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The states a group may move to this one from. */
  Set<ClassicGroupState> validPrevious() {
    return switch (this) {
      case EMPTY -> EnumSet.of(PREPARING_REBALANCE, EMPTY, STABLE, COMPLETING_REBALANCE);
      case PREPARING_REBALANCE -> EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY);
      case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE, COMPLETING_REBALANCE);
      case STABLE -> EnumSet.of(COMPLETING_REBALANCE, STABLE, PREPARING_REBALANCE);
      case DEAD -> EnumSet.allOf(ClassicGroupState.class);
    };
  }
}
