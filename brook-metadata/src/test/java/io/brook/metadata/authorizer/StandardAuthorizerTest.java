package io.brook.metadata.authorizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * Kafka's documented ACL decision table (KIP-11 and the {@code StandardAuthorizer} rules), first as
 * hand-picked cases, then as a generated matrix: every ACL built from principals × literal,
 * prefixed and wildcard patterns × allow/deny × hosts × operations, alone and in random pairs and
 * sets, decided for principals × resource names × hosts × every operation (so implied operations
 * are covered) × both values of {@code allow.everyone.if.no.acl.found}, and compared with a direct
 * transcription of the table that scans every ACL.
 */
class StandardAuthorizerTest {
  private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
  private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
  private static final KafkaPrincipal ALICE_GROUP = new KafkaPrincipal("Group", "alice");
  private static final KafkaPrincipal ANYONE = new KafkaPrincipal("User", "*");
  private static final String HOST = "10.0.0.1";
  private static final String OTHER_HOST = "10.0.0.2";

  private static final List<AclOperation> OPERATIONS =
      List.of(
          AclOperation.ALL,
          AclOperation.READ,
          AclOperation.WRITE,
          AclOperation.CREATE,
          AclOperation.DELETE,
          AclOperation.ALTER,
          AclOperation.DESCRIBE,
          AclOperation.CLUSTER_ACTION,
          AclOperation.DESCRIBE_CONFIGS,
          AclOperation.ALTER_CONFIGS,
          AclOperation.IDEMPOTENT_WRITE,
          AclOperation.CREATE_TOKENS,
          AclOperation.DESCRIBE_TOKENS);

  /** The operations a request asks for (never ALL). */
  private static final List<AclOperation> ASKED = OPERATIONS.subList(1, OPERATIONS.size());

  private static final List<String[]> PATTERNS =
      List.of(
          new String[] {"LITERAL", "orders"},
          new String[] {"LITERAL", "*"},
          new String[] {"LITERAL", "ord"},
          new String[] {"PREFIXED", "ord"},
          new String[] {"PREFIXED", "orders"},
          new String[] {"PREFIXED", "orders-eu-1"},
          new String[] {"PREFIXED", "x"});

  private static final List<String> NAMES =
      List.of("orders", "ord", "orders-eu", "orders-eu-1", "or", "other", "*", "x");

  private static final List<KafkaPrincipal> REQUESTERS = List.of(ALICE, BOB, ALICE_GROUP);

  private int nextId;

  private StandardAcl acl(
      ResourceType type,
      PatternType pattern,
      String name,
      KafkaPrincipal principal,
      String host,
      AclOperation operation,
      AclPermissionType permission) {
    return new StandardAcl(
        new Uuid(7, ++nextId), type, name, pattern, principal, host, operation, permission);
  }

  private StandardAcl topicAcl(
      PatternType pattern,
      String name,
      KafkaPrincipal principal,
      AclOperation operation,
      AclPermissionType permission) {
    return acl(ResourceType.TOPIC, pattern, name, principal, "*", operation, permission);
  }

  private static boolean decide(
      StandardAuthorizer authorizer,
      List<StandardAcl> acls,
      KafkaPrincipal principal,
      AclOperation operation,
      String name) {
    return authorizer
        .authorize(AclIndex.of(acls), principal, HOST, operation, ResourceType.TOPIC, name)
        .allowed();
  }

  @Test
  void documentedCases() {
    StandardAuthorizer strict = new StandardAuthorizer(Set.of(), false);
    StandardAuthorizer open = new StandardAuthorizer(Set.of(), true);
    StandardAcl allowRead =
        topicAcl(PatternType.LITERAL, "orders", ALICE, AclOperation.READ, AclPermissionType.ALLOW);
    StandardAcl denyRead =
        topicAcl(PatternType.LITERAL, "orders", ALICE, AclOperation.READ, AclPermissionType.DENY);
    StandardAcl allowAlterConfigs =
        topicAcl(
            PatternType.LITERAL,
            "orders",
            ALICE,
            AclOperation.ALTER_CONFIGS,
            AclPermissionType.ALLOW);
    StandardAcl prefixedWrite =
        topicAcl(PatternType.PREFIXED, "ord", ANYONE, AclOperation.WRITE, AclPermissionType.ALLOW);

    // No ACL at all: the no-ACL rule decides.
    assertThat(decide(strict, List.of(), ALICE, AclOperation.READ, "orders")).isFalse();
    assertThat(decide(open, List.of(), ALICE, AclOperation.READ, "orders")).isTrue();
    // An ALLOW allows its operation, and READ implies DESCRIBE, not WRITE.
    assertThat(decide(strict, List.of(allowRead), ALICE, AclOperation.READ, "orders")).isTrue();
    assertThat(decide(strict, List.of(allowRead), ALICE, AclOperation.DESCRIBE, "orders")).isTrue();
    assertThat(decide(strict, List.of(allowRead), ALICE, AclOperation.WRITE, "orders")).isFalse();
    // The resource has ACLs, so allow.everyone.if.no.acl.found no longer applies to it, for anyone.
    assertThat(decide(open, List.of(allowRead), BOB, AclOperation.READ, "orders")).isFalse();
    // Deny wins, and a DENY of READ does not deny DESCRIBE (implication is for ALLOW only).
    assertThat(decide(strict, List.of(allowRead, denyRead), ALICE, AclOperation.READ, "orders"))
        .isFalse();
    assertThat(decide(strict, List.of(allowRead, denyRead), ALICE, AclOperation.DESCRIBE, "orders"))
        .isTrue();
    // ALTER_CONFIGS implies DESCRIBE_CONFIGS.
    assertThat(
            decide(
                strict, List.of(allowAlterConfigs), ALICE, AclOperation.DESCRIBE_CONFIGS, "orders"))
        .isTrue();
    // A prefixed ACL for User:* covers every name starting with it, for every principal type.
    assertThat(decide(strict, List.of(prefixedWrite), ALICE_GROUP, AclOperation.WRITE, "orders"))
        .isTrue();
    assertThat(decide(strict, List.of(prefixedWrite), BOB, AclOperation.WRITE, "or")).isFalse();
    // Super users pass whatever the ACLs say.
    StandardAuthorizer withSuper = new StandardAuthorizer(Set.of(ALICE), false);
    assertThat(decide(withSuper, List.of(denyRead), ALICE, AclOperation.READ, "orders")).isTrue();
    // Hosts: an ACL for one host does not apply from another.
    StandardAcl fromHost =
        acl(
            ResourceType.TOPIC,
            PatternType.LITERAL,
            "orders",
            ALICE,
            OTHER_HOST,
            AclOperation.READ,
            AclPermissionType.ALLOW);
    assertThat(decide(strict, List.of(fromHost), ALICE, AclOperation.READ, "orders")).isFalse();
    // ACLs of another resource type do not apply.
    StandardAcl groupAcl =
        acl(
            ResourceType.GROUP,
            PatternType.LITERAL,
            "orders",
            ALICE,
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW);
    assertThat(decide(strict, List.of(groupAcl), ALICE, AclOperation.READ, "orders")).isFalse();
  }

  @Test
  void everySingleAclDecidesAsKafkasTable() {
    List<StandardAcl> all = everyAcl();
    for (StandardAcl acl : all) {
      checkAgainstTable(List.of(acl));
    }
    assertThat(all).hasSize(2 * PATTERNS.size() * 2 * 2 * OPERATIONS.size());
  }

  @Test
  void pairsAndSetsOfAclsDecideAsKafkasTable() {
    List<StandardAcl> all = everyAcl();
    Random random = new Random(20_261_201);
    for (int round = 0; round < 1500; round++) {
      int size = round < 1000 ? 2 : 3 + random.nextInt(6);
      List<StandardAcl> set = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        set.add(all.get(random.nextInt(all.size())));
      }
      checkAgainstTable(set);
    }
  }

  @Test
  void authorizeAnyFollowsAllowsNotCoveredByADeny() {
    StandardAuthorizer strict = new StandardAuthorizer(Set.of(), false);
    StandardAcl allowOrders =
        topicAcl(PatternType.LITERAL, "orders", ALICE, AclOperation.WRITE, AclPermissionType.ALLOW);
    StandardAcl denyPrefix =
        topicAcl(PatternType.PREFIXED, "ord", ALICE, AclOperation.WRITE, AclPermissionType.DENY);
    StandardAcl denyAll =
        topicAcl(PatternType.LITERAL, "*", ANYONE, AclOperation.ALL, AclPermissionType.DENY);

    assertThat(any(strict, List.of())).isFalse();
    assertThat(any(new StandardAuthorizer(Set.of(), true), List.of())).isTrue();
    assertThat(any(strict, List.of(allowOrders))).isTrue();
    assertThat(any(strict, List.of(allowOrders, denyPrefix))).isFalse();
    assertThat(any(strict, List.of(allowOrders, denyAll))).isFalse();
    assertThat(any(new StandardAuthorizer(Set.of(ALICE), false), List.of(denyAll))).isTrue();
  }

  private static boolean any(StandardAuthorizer authorizer, List<StandardAcl> acls) {
    return authorizer.authorizeAny(
        AclIndex.of(acls), ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC);
  }

  private List<StandardAcl> everyAcl() {
    List<StandardAcl> acls = new ArrayList<>();
    for (KafkaPrincipal principal : List.of(ALICE, ANYONE)) {
      for (String[] pattern : PATTERNS) {
        for (AclPermissionType permission :
            List.of(AclPermissionType.ALLOW, AclPermissionType.DENY)) {
          for (String host : List.of("*", HOST)) {
            for (AclOperation operation : OPERATIONS) {
              acls.add(
                  acl(
                      ResourceType.TOPIC,
                      PatternType.valueOf(pattern[0]),
                      pattern[1],
                      principal,
                      host,
                      operation,
                      permission));
            }
          }
        }
      }
    }
    return acls;
  }

  private static void checkAgainstTable(List<StandardAcl> acls) {
    AclIndex index = AclIndex.of(acls);
    for (boolean allowEveryone : new boolean[] {false, true}) {
      StandardAuthorizer authorizer = new StandardAuthorizer(Set.of(), allowEveryone);
      for (KafkaPrincipal principal : REQUESTERS) {
        for (String host : List.of(HOST, OTHER_HOST)) {
          for (String name : NAMES) {
            for (AclOperation operation : ASKED) {
              boolean expected = table(acls, allowEveryone, principal, host, operation, name);
              boolean actual =
                  authorizer
                      .authorize(index, principal, host, operation, ResourceType.TOPIC, name)
                      .allowed();
              assertThat(actual)
                  .as(
                      "%s from %s: %s on %s, allow.everyone=%s, ACLs %s",
                      principal, host, operation, name, allowEveryone, acls)
                  .isEqualTo(expected);
            }
          }
        }
      }
    }
  }

  /** Kafka's table, transcribed as plainly as possible: scan every ACL. */
  private static boolean table(
      List<StandardAcl> acls,
      boolean allowEveryone,
      KafkaPrincipal principal,
      String host,
      AclOperation operation,
      String name) {
    boolean anyForResource = false;
    boolean allowed = false;
    for (StandardAcl acl : acls) {
      boolean patternMatches =
          acl.patternType() == PatternType.LITERAL
              ? acl.resourceName().equals(name) || acl.resourceName().equals("*")
              : name.startsWith(acl.resourceName());
      if (acl.resourceType() != ResourceType.TOPIC || !patternMatches) {
        continue;
      }
      anyForResource = true;
      boolean principalMatches =
          acl.principal().equals(principal) || acl.principal().equals(ANYONE);
      boolean hostMatches = acl.host().equals("*") || acl.host().equals(host);
      if (!principalMatches || !hostMatches) {
        continue;
      }
      boolean allow = acl.permission() == AclPermissionType.ALLOW;
      boolean covers =
          acl.operation() == AclOperation.ALL
              || acl.operation() == operation
              || (allow
                  && operation == AclOperation.DESCRIBE
                  && Set.of(
                          AclOperation.READ,
                          AclOperation.WRITE,
                          AclOperation.DELETE,
                          AclOperation.ALTER)
                      .contains(acl.operation()))
              || (allow
                  && operation == AclOperation.DESCRIBE_CONFIGS
                  && acl.operation() == AclOperation.ALTER_CONFIGS);
      if (!covers) {
        continue;
      }
      if (!allow) {
        return false;
      }
      allowed = true;
    }
    return allowed || (!anyForResource && allowEveryone);
  }
}
