package io.brook.metadata.record;

/**
 * The broker is unfenced: eligible again as a leader and ISR member. Applies only to the
 * registration with this exact epoch.
 *
 * @param brokerId the broker's id
 * @param brokerEpoch the epoch of the registration this record applies to
 */
public record UnfenceBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord {}
