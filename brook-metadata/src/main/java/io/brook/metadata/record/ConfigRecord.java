package io.brook.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.config.ConfigResource;

/**
 * A config override was set, or deleted when {@code value} is null.
 *
 * @param resourceType the resource's type: {@code TOPIC} or {@code BROKER} today
 * @param resourceName the topic's name, the broker's id as a string, or {@code ""} for the
 *     cluster-wide broker default
 * @param name the config's name, for example {@code retention.ms}
 * @param value the new value, or null to delete the override
 */
public record ConfigRecord(
    ConfigResource.Type resourceType, String resourceName, String name, String value)
    implements MetadataRecord {
  public ConfigRecord {
    Objects.requireNonNull(resourceType, "resourceType");
    Objects.requireNonNull(resourceName, "resourceName");
    Objects.requireNonNull(name, "name");
  }
}
