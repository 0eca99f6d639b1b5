package io.brook.metadata.record;

/**
 * The cluster's id, written once by the first active controller; every node adopts it into its
 * {@code meta.properties} and a node (or broker registration) with another id is refused.
 *
 * @param clusterId a Kafka-style base64 {@code Uuid}, or any id a node was formatted with
 */
public record ClusterIdRecord(String clusterId) implements MetadataRecord {}
