package io.brook.metadata.authorizer;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Kafka's ACL decision ({@code StandardAuthorizer}, KIP-11): may a principal, connected from a
 * host, perform an operation on a resource?
 *
 * <ol>
 *   <li>A principal listed in {@code super.users} may do anything.
 *   <li>The ACLs whose pattern matches the resource are those of its exact name (literal), of the
 *       wildcard name {@code *} (literal) and of every prefix of its name (prefixed). Among them,
 *       an ACL applies when its principal is the request's or {@code User:*}, its host is the
 *       client's address or {@code *}, and its operation is the one asked or {@code ALL}.
 *   <li>An applying DENY wins over any ALLOW; otherwise an applying ALLOW allows.
 *   <li>An ALLOW of READ, WRITE, DELETE or ALTER also allows DESCRIBE, and one of ALTER_CONFIGS
 *       also allows DESCRIBE_CONFIGS; a DENY implies nothing beyond its own operation.
 *   <li>With no applying ACL, the resource is denied if any ACL matches it at all (for anyone), and
 *       otherwise decided by {@code allow.everyone.if.no.acl.found} (false by default).
 * </ol>
 *
 * <p>Stateless apart from its settings: the ACLs come with each call, from the metadata image the
 * caller read, so a decision never sees half of an ACL change. Thread-safe.
 */
public final class StandardAuthorizer {
  /** The value of {@code authorizer.class.name} that selects this authorizer, as in Kafka. */
  public static final String CLASS_NAME = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

  /** The resource name of the cluster, as Kafka names it. */
  public static final String CLUSTER_NAME = "kafka-cluster";

  private static final String WILDCARD_PRINCIPAL_NAME = "*";
  private static final Set<AclOperation> IMPLIES_DESCRIBE =
      EnumSet.of(
          AclOperation.DESCRIBE,
          AclOperation.READ,
          AclOperation.WRITE,
          AclOperation.DELETE,
          AclOperation.ALTER);
  private static final Set<AclOperation> IMPLIES_DESCRIBE_CONFIGS =
      EnumSet.of(AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS);

  /**
   * A decision and why it was taken: a fixed rule, or the ACL that decided (its text is built only
   * when the audit log asks, so a decision on the produce path allocates one small object at most).
   */
  public static final class Decision {
    static final Decision SUPER_USER = new Decision(true, "SuperUser", null);
    static final Decision DEFAULT_ALLOW = new Decision(true, "DefaultAllow", null);
    static final Decision DEFAULT_DENY = new Decision(false, "DefaultDeny", null);
    static final Decision NO_MATCHING_ACL = new Decision(false, "NoMatchingAcl", null);

    private final boolean allowed;
    private final String rule;
    private final StandardAcl acl;

    private Decision(boolean allowed, String rule, StandardAcl acl) {
      this.allowed = allowed;
      this.rule = rule;
      this.acl = acl;
    }

    static Decision of(StandardAcl acl) {
      return new Decision(acl.permission() == AclPermissionType.ALLOW, null, acl);
    }

    public boolean allowed() {
      return allowed;
    }

    /** The rule, as the audit log names it. */
    public String rule() {
      return acl == null ? rule : "MatchingAcl(" + acl.toBinding() + ")";
    }

    @Override
    public String toString() {
      return (allowed ? "ALLOWED by " : "DENIED by ") + rule();
    }
  }

  private final Set<KafkaPrincipal> superUsers;
  private final Decision noAclDecision;

  /**
   * @param superUsers principals allowed everything ({@code super.users})
   * @param allowEveryoneIfNoAclFound {@code allow.everyone.if.no.acl.found}
   */
  public StandardAuthorizer(Set<KafkaPrincipal> superUsers, boolean allowEveryoneIfNoAclFound) {
    this.superUsers = Set.copyOf(superUsers);
    this.noAclDecision = allowEveryoneIfNoAclFound ? Decision.DEFAULT_ALLOW : Decision.DEFAULT_DENY;
  }

  public Set<KafkaPrincipal> superUsers() {
    return superUsers;
  }

  public boolean isSuperUser(KafkaPrincipal principal) {
    return !superUsers.isEmpty()
        && superUsers.contains(
            new KafkaPrincipal(principal.getPrincipalType(), principal.getName()));
  }

  /**
   * The decision for one action.
   *
   * @param acls the ACLs of the image the caller works on
   * @param host the client's address, as {@code InetAddress.getHostAddress()} writes it
   */
  public Decision authorize(
      AclIndex acls,
      KafkaPrincipal principal,
      String host,
      AclOperation operation,
      ResourceType resourceType,
      String resourceName) {
    if (isSuperUser(principal)) {
      return Decision.SUPER_USER;
    }
    AclIndex.Section section = acls.section(resourceType);
    if (section == null) {
      return noAclDecision;
    }
    Search search = new Search(principal, host, operation);
    search.visit(section.literal.get(resourceName));
    if (search.deny == null && !StandardAcl.WILDCARD.equals(resourceName)) {
      search.visit(section.literal.get(StandardAcl.WILDCARD));
    }
    if (search.deny == null) {
      visitPrefixes(section, resourceName, search);
    }
    if (search.deny != null) {
      return Decision.of(search.deny);
    }
    if (search.allow != null) {
      return Decision.of(search.allow);
    }
    return search.foundResourceAcls ? Decision.NO_MATCHING_ACL : noAclDecision;
  }

  /**
   * Whether the principal may perform {@code operation} on at least one resource of a type (Kafka's
   * {@code authorizeByResourceType}, used for an idempotent producer's InitProducerId): some ALLOW
   * that applies to it, literal or prefixed, and is not covered by a DENY that applies to it (a
   * literal DENY of the same name, a prefixed DENY of a prefix, or a DENY of {@code *}). Reads
   * every ACL of the type, so it is for rare requests only.
   */
  public boolean authorizeAny(
      AclIndex acls,
      KafkaPrincipal principal,
      String host,
      AclOperation operation,
      ResourceType resourceType) {
    if (isSuperUser(principal)) {
      return true;
    }
    AclIndex.Section section = acls.section(resourceType);
    if (section == null) {
      return noAclDecision.allowed();
    }
    Search exact = new Search(principal, host, AclOperation.UNKNOWN);
    java.util.Set<String> deniedLiterals = new java.util.HashSet<>();
    java.util.List<String> deniedPrefixes = new java.util.ArrayList<>();
    for (StandardAcl acl : acls.byId().values()) {
      if (acl.resourceType() == resourceType
          && acl.permission() == AclPermissionType.DENY
          && exact.appliesTo(acl, operation)) {
        if (acl.patternType() == org.apache.kafka.common.resource.PatternType.PREFIXED) {
          deniedPrefixes.add(acl.resourceName());
        } else if (StandardAcl.WILDCARD.equals(acl.resourceName())) {
          return false;
        } else {
          deniedLiterals.add(acl.resourceName());
        }
      }
    }
    for (StandardAcl acl : acls.byId().values()) {
      if (acl.resourceType() != resourceType
          || acl.permission() != AclPermissionType.ALLOW
          || !exact.appliesTo(acl, operation)) {
        continue;
      }
      String name = acl.resourceName();
      boolean literal = acl.patternType() != org.apache.kafka.common.resource.PatternType.PREFIXED;
      if (literal && StandardAcl.WILDCARD.equals(name)) {
        return true;
      }
      if (literal && deniedLiterals.contains(name)) {
        continue;
      }
      if (deniedPrefixes.stream().noneMatch(name::startsWith)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Visits the prefixed ACLs whose name is a prefix of {@code name}, longest first, by jumping
   * through the sorted map: each step finds the greatest key not above the bound, and the next
   * bound is cut to where that key and the name part, so only the keys that are prefixes of the
   * name and the few that diverge from it are ever read.
   */
  private static void visitPrefixes(AclIndex.Section section, String name, Search search) {
    if (section.prefixed.isEmpty()) {
      return;
    }
    String bound = name;
    while (!bound.isEmpty() && search.deny == null) {
      Map.Entry<String, List<StandardAcl>> entry = section.prefixed.floorEntry(bound);
      if (entry == null) {
        return;
      }
      String key = entry.getKey();
      int common = commonPrefixLength(name, key);
      int next;
      if (common == key.length()) {
        search.visit(entry.getValue());
        next = key.length() - 1;
      } else {
        next = common;
      }
      bound = name.substring(0, next);
    }
  }

  private static int commonPrefixLength(String a, String b) {
    int max = Math.min(a.length(), b.length());
    int i = 0;
    while (i < max && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    return i;
  }

  /** The state of one decision: the first applying DENY and ALLOW, and whether any ACL matched. */
  private static final class Search {
    private final KafkaPrincipal principal;
    private final String host;
    private final AclOperation operation;
    StandardAcl deny;
    StandardAcl allow;
    boolean foundResourceAcls;

    Search(KafkaPrincipal principal, String host, AclOperation operation) {
      this.principal = principal;
      this.host = host;
      this.operation = operation;
    }

    void visit(List<StandardAcl> acls) {
      if (acls == null) {
        return;
      }
      foundResourceAcls = true;
      for (StandardAcl acl : acls) {
        if (!applies(acl)) {
          continue;
        }
        if (acl.permission() == AclPermissionType.DENY) {
          deny = acl;
          return;
        }
        if (allow == null) {
          allow = acl;
        }
      }
    }

    private boolean applies(StandardAcl acl) {
      return appliesTo(acl, operation);
    }

    /** Whether the ACL names this principal (or all) and host (or all), and covers operation. */
    boolean appliesTo(StandardAcl acl, AclOperation operation) {
      KafkaPrincipal p = acl.principal();
      // User:* stands for every principal, whatever its type (as in Kafka).
      boolean principalMatches =
          (p.getName().equals(principal.getName())
                  && p.getPrincipalType().equals(principal.getPrincipalType()))
              || (WILDCARD_PRINCIPAL_NAME.equals(p.getName())
                  && KafkaPrincipal.USER_TYPE.equals(p.getPrincipalType()));
      if (!principalMatches) {
        return false;
      }
      if (!StandardAcl.WILDCARD.equals(acl.host()) && !acl.host().equals(host)) {
        return false;
      }
      AclOperation granted = acl.operation();
      if (granted == AclOperation.ALL || granted == operation) {
        return true;
      }
      if (acl.permission() != AclPermissionType.ALLOW) {
        return false;
      }
      return (operation == AclOperation.DESCRIBE && IMPLIES_DESCRIBE.contains(granted))
          || (operation == AclOperation.DESCRIBE_CONFIGS
              && IMPLIES_DESCRIBE_CONFIGS.contains(granted));
    }
  }
}
