package io.brook.metadata.record;

/**
 * The broker is fenced: no longer eligible as a leader or ISR member until it is unfenced. Applies
 * only to the registration with this exact epoch.
 *
 * @param brokerId the broker's id
 * @param brokerEpoch the epoch of the registration this record applies to
 */
public record FenceBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord {}
