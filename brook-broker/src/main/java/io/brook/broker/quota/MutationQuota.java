package io.brook.broker.quota;

/**
 * What one CreateTopics, CreatePartitions or DeleteTopics request may still mutate under its
 * client's {@code controller_mutation_rate} ({@link ControllerMutationQuotas}). Used by one request
 * at a time.
 */
public interface MutationQuota {
  /** No quota applies: everything is admitted, nothing is throttled. */
  MutationQuota UNLIMITED =
      new MutationQuota() {
        @Override
        public boolean admit(int partitions) {
          return true;
        }

        @Override
        public int throttleTimeMs() {
          return 0;
        }
      };

  /**
   * Charges the creation or deletion of {@code partitions} partitions.
   *
   * @return false if the mutation is refused ({@code THROTTLING_QUOTA_EXCEEDED}): the request knows
   *     that error and its client's quota is already used up
   */
  boolean admit(int partitions);

  /** How long the request's client is throttled, 0 while it is within its quota. */
  int throttleTimeMs();
}
