package io.brook.metadata.record;

/**
 * The finalized level of one cluster feature (Kafka's {@code FeatureLevelRecord}), such as {@code
 * transaction.version}. Level 0 means the feature is not finalized: the image drops it, as Kafka
 * does. Written by the controller when the cluster is created (its defaults) and by UpdateFeatures.
 */
public record FeatureLevelRecord(String name, short featureLevel) implements MetadataRecord {}
