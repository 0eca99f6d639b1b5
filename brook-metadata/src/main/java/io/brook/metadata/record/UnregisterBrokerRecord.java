package io.brook.metadata.record;

/**
 * The broker's registration ends: it leaves the image. Applies only to the registration with this
 * exact epoch.
 *
 * @param brokerId the broker's id
 * @param brokerEpoch the epoch of the registration this record applies to
 */
public record UnregisterBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord {}
