package io.brook.metadata.record;

/**
 * A block of producer ids was handed to a broker.
 *
 * @param brokerId the broker that received the block (-1 in a compacted snapshot)
 * @param brokerEpoch that broker's epoch (-1 in a compacted snapshot)
 * @param nextProducerId the next producer id not yet handed out; strictly increasing
 */
public record ProducerIdsRecord(int brokerId, long brokerEpoch, long nextProducerId)
    implements MetadataRecord {}
