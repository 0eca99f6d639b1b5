package io.brook.metadata.authorizer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * All ACLs of the cluster, indexed for the authorizer: per resource type, literal ACLs by exact
 * name (the wildcard {@code *} is one such name) and prefixed ACLs in a sorted map, so one decision
 * reads the ACLs of one name, of {@code *} and of the name's prefixes that carry ACLs, never the
 * whole set. Immutable and thread-safe: the metadata image holds one, and a batch of ACL records
 * gives the next image a new index, so a decision sees every ACL of a batch or none.
 */
public final class AclIndex {
  public static final AclIndex EMPTY = new AclIndex(Map.of());

  /** The ACLs of one resource type. */
  static final class Section {
    final Map<String, List<StandardAcl>> literal = new HashMap<>();
    final TreeMap<String, List<StandardAcl>> prefixed = new TreeMap<>();
  }

  private final Map<Uuid, StandardAcl> byId;
  private final Map<ResourceType, Section> sections = new EnumMap<>(ResourceType.class);

  private AclIndex(Map<Uuid, StandardAcl> byId) {
    this.byId = byId;
    for (StandardAcl acl : byId.values()) {
      Section section = sections.computeIfAbsent(acl.resourceType(), t -> new Section());
      Map<String, List<StandardAcl>> names =
          acl.patternType() == PatternType.PREFIXED ? section.prefixed : section.literal;
      names.computeIfAbsent(acl.resourceName(), n -> new ArrayList<>(1)).add(acl);
    }
  }

  /** An index of these ACLs, kept in iteration order for listings. */
  public static AclIndex of(Collection<StandardAcl> acls) {
    if (acls.isEmpty()) {
      return EMPTY;
    }
    Map<Uuid, StandardAcl> byId = new LinkedHashMap<>();
    for (StandardAcl acl : acls) {
      byId.put(acl.id(), acl);
    }
    return new AclIndex(Collections.unmodifiableMap(byId));
  }

  /** Every ACL by id, in creation order. */
  public Map<Uuid, StandardAcl> byId() {
    return byId;
  }

  public Optional<StandardAcl> get(Uuid id) {
    return Optional.ofNullable(byId.get(id));
  }

  public boolean isEmpty() {
    return byId.isEmpty();
  }

  /** The ACLs a DescribeAcls or DeleteAcls filter selects, in creation order. */
  public List<StandardAcl> matching(AclBindingFilter filter) {
    List<StandardAcl> found = new ArrayList<>();
    for (StandardAcl acl : byId.values()) {
      if (filter.matches(acl.toBinding())) {
        found.add(acl);
      }
    }
    return found;
  }

  /** The section of one resource type, or null without ACLs of that type. */
  Section section(ResourceType type) {
    return sections.get(type);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AclIndex other && byId.equals(other.byId);
  }

  @Override
  public int hashCode() {
    return byId.hashCode();
  }

  @Override
  public String toString() {
    return "AclIndex" + byId.values();
  }
}
