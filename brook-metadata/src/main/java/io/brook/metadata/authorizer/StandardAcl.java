package io.brook.metadata.authorizer;

import io.brook.metadata.record.AccessControlEntryRecord;
import java.util.Objects;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One ACL as the authorizer holds it: a binding of a resource pattern (literal or prefixed) to a
 * principal, host, operation and permission, with the id its record carries. Immutable.
 */
public record StandardAcl(
    Uuid id,
    ResourceType resourceType,
    String resourceName,
    PatternType patternType,
    KafkaPrincipal principal,
    String host,
    AclOperation operation,
    AclPermissionType permission) {
  /** The resource name and host that match every name or host. */
  public static final String WILDCARD = "*";

  public StandardAcl {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(resourceType, "resourceType");
    Objects.requireNonNull(resourceName, "resourceName");
    Objects.requireNonNull(patternType, "patternType");
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(permission, "permission");
  }

  /**
   * The ACL a record describes.
   *
   * @throws IllegalArgumentException if a code is unknown or the principal is not {@code Type:name}
   */
  public static StandardAcl fromRecord(AccessControlEntryRecord r) {
    return new StandardAcl(
        r.id(),
        known(ResourceType.fromCode(r.resourceType()), ResourceType.UNKNOWN, "resource type"),
        r.resourceName(),
        known(PatternType.fromCode(r.patternType()), PatternType.UNKNOWN, "pattern type"),
        parsePrincipal(r.principal()),
        r.host(),
        known(AclOperation.fromCode(r.operation()), AclOperation.UNKNOWN, "operation"),
        known(
            AclPermissionType.fromCode(r.permissionType()),
            AclPermissionType.UNKNOWN,
            "permission type"));
  }

  /** The ACL of a binding, with a new id. */
  public static StandardAcl fromBinding(Uuid id, AclBinding binding) {
    AccessControlEntry entry = binding.entry();
    return new StandardAcl(
        id,
        binding.pattern().resourceType(),
        binding.pattern().name(),
        binding.pattern().patternType(),
        parsePrincipal(entry.principal()),
        entry.host(),
        entry.operation(),
        entry.permissionType());
  }

  public AccessControlEntryRecord toRecord() {
    return new AccessControlEntryRecord(
        id,
        resourceType.code(),
        resourceName,
        patternType.code(),
        principalString(),
        host,
        operation.code(),
        permission.code());
  }

  public AclBinding toBinding() {
    return new AclBinding(
        new ResourcePattern(resourceType, resourceName, patternType),
        new AccessControlEntry(principalString(), host, operation, permission));
  }

  /** {@code Type:name}, as ACLs and {@code super.users} write principals. */
  public String principalString() {
    return principal.getPrincipalType() + ":" + principal.getName();
  }

  /** This ACL without its id: two ACLs with the same binding are the same rule. */
  public boolean sameBinding(StandardAcl other) {
    return resourceType == other.resourceType
        && resourceName.equals(other.resourceName)
        && patternType == other.patternType
        && principal.equals(other.principal)
        && host.equals(other.host)
        && operation == other.operation
        && permission == other.permission;
  }

  /**
   * A principal written {@code Type:name}, the form of ACLs and {@code super.users}.
   *
   * @throws IllegalArgumentException without a type, a colon or a name
   */
  public static KafkaPrincipal parsePrincipal(String principal) {
    int colon = principal == null ? -1 : principal.indexOf(':');
    if (colon <= 0 || colon == principal.length() - 1) {
      throw new IllegalArgumentException(
          "a principal must be written Type:name (for example User:alice), not " + principal);
    }
    return new KafkaPrincipal(principal.substring(0, colon), principal.substring(colon + 1));
  }

  private static <T> T known(T value, T unknown, String what) {
    if (value == unknown) {
      throw new IllegalArgumentException("unknown ACL " + what);
    }
    return value;
  }
}
