package io.brook.controller.state;

import io.brook.metadata.authorizer.AclIndex;
import io.brook.metadata.authorizer.StandardAcl;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RemoveAccessControlEntryRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ACLs (Kafka's CreateAcls and DeleteAcls on the controller): validates new bindings and turns them
 * into {@code AccessControlEntryRecord}s with fresh ids, and deletion filters into {@code
 * RemoveAccessControlEntryRecord}s of every ACL they match.
 */
public final class AclControl {
  /** What one DeleteAcls filter did: an error, or the ACLs it deleted. */
  public record FilterResult(ApiError error, List<StandardAcl> deleted) {
    public FilterResult {
      deleted = List.copyOf(deleted);
    }
  }

  private final Random random;

  AclControl(Random random) {
    this.random = random;
  }

  /**
   * One result per binding, in order. A binding equal to an existing ACL (or to an earlier one of
   * the same request) succeeds without a new record, as in Kafka.
   */
  ControllerResult<List<ApiError>> create(MetadataImage image, List<AclBinding> bindings) {
    AclIndex current = image.acls();
    List<MetadataRecord> records = new ArrayList<>();
    List<StandardAcl> added = new ArrayList<>();
    Set<Uuid> usedIds = new HashSet<>();
    List<ApiError> results = new ArrayList<>(bindings.size());
    for (AclBinding binding : bindings) {
      ApiError invalid = validate(binding);
      if (invalid.isFailure()) {
        results.add(invalid);
        continue;
      }
      StandardAcl acl = StandardAcl.fromBinding(newId(current, usedIds), binding);
      boolean exists =
          current.byId().values().stream().anyMatch(acl::sameBinding)
              || added.stream().anyMatch(acl::sameBinding);
      if (!exists) {
        added.add(acl);
        records.add(acl.toRecord());
      }
      results.add(ApiError.NONE);
    }
    return ControllerResult.of(records, results);
  }

  /**
   * One result per filter, in order; an ACL matched by several filters is deleted once and reported
   * by each.
   */
  ControllerResult<List<FilterResult>> delete(MetadataImage image, List<AclBindingFilter> filters) {
    Map<Uuid, StandardAcl> deleted = new LinkedHashMap<>();
    List<FilterResult> results = new ArrayList<>(filters.size());
    for (AclBindingFilter filter : filters) {
      if (filter.isUnknown()) {
        results.add(
            new FilterResult(
                new ApiError(Errors.INVALID_REQUEST, "The filter has an unknown element."),
                List.of()));
        continue;
      }
      List<StandardAcl> matched = image.acls().matching(filter);
      matched.forEach(acl -> deleted.put(acl.id(), acl));
      results.add(new FilterResult(ApiError.NONE, matched));
    }
    List<MetadataRecord> records = new ArrayList<>(deleted.size());
    deleted.keySet().forEach(id -> records.add(new RemoveAccessControlEntryRecord(id)));
    return ControllerResult.of(records, results);
  }

  /** Kafka's checks of a new ACL: concrete types, a name, a {@code Type:name} principal, a host. */
  static ApiError validate(AclBinding binding) {
    ResourceType type = binding.pattern().resourceType();
    if (type == ResourceType.ANY || type == ResourceType.UNKNOWN) {
      return invalid("Invalid resourceType " + type);
    }
    PatternType pattern = binding.pattern().patternType();
    if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
      return invalid("Invalid patternType " + pattern);
    }
    AclOperation operation = binding.entry().operation();
    if (operation == AclOperation.ANY || operation == AclOperation.UNKNOWN) {
      return invalid("Invalid operation " + operation);
    }
    AclPermissionType permission = binding.entry().permissionType();
    if (permission != AclPermissionType.ALLOW && permission != AclPermissionType.DENY) {
      return invalid("Invalid permissionType " + permission);
    }
    String name = binding.pattern().name();
    if (name == null || name.isEmpty()) {
      return invalid("Resource name should not be empty");
    }
    if (binding.entry().host() == null || binding.entry().host().isEmpty()) {
      return invalid("Invalid host");
    }
    try {
      StandardAcl.parsePrincipal(binding.entry().principal());
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
    return ApiError.NONE;
  }

  private static ApiError invalid(String message) {
    return new ApiError(Errors.INVALID_REQUEST, message);
  }

  private Uuid newId(AclIndex current, Set<Uuid> used) {
    while (true) {
      Uuid id = new Uuid(random.nextLong(), random.nextLong());
      if (!Uuid.RESERVED.contains(id) && current.get(id).isEmpty() && used.add(id)) {
        return id;
      }
    }
  }
}
