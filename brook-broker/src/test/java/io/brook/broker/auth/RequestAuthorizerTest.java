package io.brook.broker.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.authorizer.AclIndex;
import io.brook.metadata.authorizer.StandardAcl;
import io.brook.metadata.authorizer.StandardAuthorizer;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The request-side checks: the principal and address of a request, and the audit log lines. */
class RequestAuthorizerTest {
  private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");

  private final Captured audit = new Captured();
  private final Logger auditLogger = (Logger) LogManager.getLogger("kafka.authorizer.logger");
  private Level previousLevel;

  /** Records the audit logger's events. */
  private static final class Captured extends AbstractAppender {
    final List<LogEvent> events = new CopyOnWriteArrayList<>();

    Captured() {
      super("captured-audit", null, null, true, Property.EMPTY_ARRAY);
    }

    @Override
    public void append(LogEvent event) {
      events.add(event.toImmutable());
    }
  }

  @BeforeEach
  void captureAudit() {
    previousLevel = auditLogger.getLevel();
    audit.start();
    auditLogger.addAppender(audit);
    auditLogger.setLevel(Level.DEBUG);
  }

  @AfterEach
  void releaseAudit() {
    auditLogger.removeAppender(audit);
    auditLogger.setLevel(previousLevel);
    audit.stop();
  }

  private static RequestContext context(KafkaPrincipal principal) throws Exception {
    return new RequestContext(
        new RequestHeader(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion(), "client", 1),
        "PLAINTEXT",
        InetAddress.getByName("10.1.2.3"),
        "c1",
        0,
        () -> {},
        principal);
  }

  private static RequestAuthorizer authorizer(StandardAcl... acls) {
    return new RequestAuthorizer(
        new StandardAuthorizer(Set.of(), false), () -> AclIndex.of(List.of(acls)));
  }

  private static StandardAcl allowWrite(String host) {
    return new StandardAcl(
        new Uuid(1, 1),
        ResourceType.TOPIC,
        "orders",
        PatternType.LITERAL,
        ALICE,
        host,
        AclOperation.WRITE,
        AclPermissionType.ALLOW);
  }

  @Test
  void aDenialIsOneInfoLineNamingPrincipalHostOperationAndResource() throws Exception {
    boolean allowed =
        authorizer().authorize(context(ALICE), AclOperation.WRITE, ResourceType.TOPIC, "orders");

    assertThat(allowed).isFalse();
    assertThat(audit.events).hasSize(1);
    LogEvent line = audit.events.get(0);
    assertThat(line.getLevel()).isEqualTo(Level.INFO);
    assertThat(line.getMessage().getFormattedMessage())
        .contains("User:alice", "Denied", "WRITE", "10.1.2.3", "TOPIC:orders", "Produce");
  }

  @Test
  void anAllowIsLoggedAtDebugAndTheClientAddressMustMatchTheAclHost() throws Exception {
    assertThat(
            authorizer(allowWrite("10.1.2.3"))
                .authorize(context(ALICE), AclOperation.WRITE, ResourceType.TOPIC, "orders"))
        .isTrue();
    assertThat(audit.events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
              assertThat(e.getMessage().getFormattedMessage()).contains("Allowed");
            });
    assertThat(
            authorizer(allowWrite("10.9.9.9"))
                .authorize(context(ALICE), AclOperation.WRITE, ResourceType.TOPIC, "orders"))
        .isFalse();
  }

  @Test
  void aQuietDenialIsNotLoggedAboveTrace() throws Exception {
    assertThat(
            authorizer()
                .authorizeQuietly(
                    context(ALICE), AclOperation.DESCRIBE, ResourceType.TOPIC, "orders"))
        .isFalse();
    assertThat(audit.events).isEmpty();
  }

  @Test
  void onlyTheControllerChannelsOwnPrincipalObjectIsTrusted() throws Exception {
    RequestAuthorizer strict = authorizer();
    assertThat(
            strict.authorizeCluster(
                context(RequestAuthorizer.CLUSTER_INTERNAL), AclOperation.CLUSTER_ACTION))
        .isTrue();
    // The same name arriving from elsewhere is just another principal.
    KafkaPrincipal lookalike =
        new KafkaPrincipal(
            RequestAuthorizer.CLUSTER_INTERNAL.getPrincipalType(),
            RequestAuthorizer.CLUSTER_INTERNAL.getName());
    assertThat(strict.authorizeCluster(context(lookalike), AclOperation.CLUSTER_ACTION)).isFalse();
    // Without an authorizer everything passes.
    assertThat(
            RequestAuthorizer.ALLOW_ALL.authorize(
                context(ALICE), AclOperation.WRITE, ResourceType.TOPIC, "orders"))
        .isTrue();
  }
}
