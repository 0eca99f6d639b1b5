package io.brook.coordinator.group.classic;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a classic group, named as Kafka names them on the wire, and the one table of the
 * moves a live group may make between them (Kafka's table):
 *
 * <pre>
 *            join                 all joined / rebalance timeout        leader's SyncGroup durable
 *   Empty ---------> PreparingRebalance ----------------------> CompletingRebalance -----------> Stable
 *     ^                 ^   |  no member left                          |                            |
 *     |                 |   +--------------> Empty                     | member change / timeout    |
 *     |                 +-------------------------------------------------------------------------+
 *   every state -----> Dead (group deleted or its shard unloaded)
 * </pre>
 *
 * Staying in a state is not a move: events that keep the state (a member heartbeating, a static
 * member swapped in a Stable group) check the state they need instead. Loading is not a move
 * either: a group record read from {@code __consumer_offsets} restores the state it was written in
 * ({@link ClassicGroupEvent.GroupLoaded}).
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

  /** The states a live group may move to from this one. */
  Set<ClassicGroupState> validNext() {
    return switch (this) {
      case EMPTY -> EnumSet.of(PREPARING_REBALANCE, DEAD);
      case PREPARING_REBALANCE -> EnumSet.of(COMPLETING_REBALANCE, EMPTY, DEAD);
      case COMPLETING_REBALANCE -> EnumSet.of(STABLE, PREPARING_REBALANCE, DEAD);
      case STABLE -> EnumSet.of(PREPARING_REBALANCE, DEAD);
      case DEAD -> EnumSet.of(DEAD);
    };
  }

  boolean canMoveTo(ClassicGroupState next) {
    return validNext().contains(next);
  }
}
