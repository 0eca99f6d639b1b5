package io.brook.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * An ACL was created: Kafka's {@code AccessControlEntryRecord}, field for field, with the enum
 * fields as Kafka's codes ({@code ResourceType}, {@code PatternType}, {@code AclOperation}, {@code
 * AclPermissionType}), so the log reads the same as Kafka's.
 *
 * @param id the ACL's id, which {@link RemoveAccessControlEntryRecord} names
 * @param principal for example {@code User:alice}, or {@code User:*}
 * @param host a host address, or {@code *}
 */
public record AccessControlEntryRecord(
    Uuid id,
    byte resourceType,
    String resourceName,
    byte patternType,
    String principal,
    String host,
    byte operation,
    byte permissionType)
    implements MetadataRecord {
  public AccessControlEntryRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(resourceName, "resourceName");
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(host, "host");
  }
}
