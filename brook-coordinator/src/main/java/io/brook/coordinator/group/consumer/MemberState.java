package io.brook.coordinator.group.consumer;

/**
 * Where a member is in reconciling its current assignment with its target assignment.
 *
 * <pre>
 *                 new target: must give up partitions
 *   STABLE -----------------------------------------------> UNREVOKED_PARTITIONS
 *   |  ^  ^                                                   |
 *   |  |  +------ reports them revoked, all new ones free ----+
 *   |  |                                                      | reports them revoked, some new
 *   |  | released                                             | ones still owned by others
 *   |  |                                                      v
 *   +--+-- new target: some new partitions still owned -> UNRELEASED_PARTITIONS
 * </pre>
 *
 * A member moves to the target epoch when it leaves UNREVOKED_PARTITIONS (or directly from STABLE
 * when it has nothing to give up).
 */
public enum MemberState {
  /** The member owns its whole target assignment at the target epoch. */
  STABLE((byte) 0),
  /** The member must revoke partitions before it can move to the target epoch. */
  UNREVOKED_PARTITIONS((byte) 1),
  /** The member is at the target epoch but waits for partitions other members still own. */
  UNRELEASED_PARTITIONS((byte) 2);

  private final byte code;

  MemberState(byte code) {
    this.code = code;
  }

  public byte code() {
    return code;
  }

  /**
   * The state a record stores as {@code code}.
   *
   * @throws IllegalArgumentException for an unknown code
   */
  public static MemberState fromCode(byte code) {
    for (MemberState state : values()) {
      if (state.code == code) {
        return state;
      }
    }
    throw new IllegalArgumentException("unknown member state " + code);
  }
}
