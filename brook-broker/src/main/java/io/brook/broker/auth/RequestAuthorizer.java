package io.brook.broker.auth;

import io.brook.broker.api.ApiFailure;
import io.brook.metadata.authorizer.AclIndex;
import io.brook.metadata.authorizer.StandardAuthorizer;
import io.brook.metadata.authorizer.StandardAuthorizer.Decision;
import io.brook.protocol.RequestContext;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way handlers ask whether a request may act on a resource: the request's principal and
 * client address, Kafka's {@link StandardAuthorizer} rules, and the ACLs of the current metadata
 * image. Without an authorizer configured ({@code authorizer.class.name} empty, Kafka's default)
 * everything is allowed.
 *
 * <p>Every decision taken for a resource the request names is written to the audit logger {@code
 * kafka.authorizer.logger} (Kafka's name): denials at INFO, allows at DEBUG. Decisions that only
 * filter a listing (a Metadata request for all topics) are logged at TRACE, as in Kafka.
 *
 * <p>Thread-safe; a decision reads the image once, so it sees a whole ACL change or none of it.
 */
public final class RequestAuthorizer {
  /**
   * The principal of requests that arrive over the controller channel without a client's principal
   * (a broker's own calls to the controller, such as creating an internal topic). The channel is
   * reachable only by the cluster's nodes, so they are allowed everything; this principal cannot
   * come from a listener, as only this object is recognised, not its name.
   */
  public static final KafkaPrincipal CLUSTER_INTERNAL =
      new KafkaPrincipal("BrookInternal", "controller-channel");

  /** Allows everything: no authorizer configured. */
  public static final RequestAuthorizer ALLOW_ALL =
      new RequestAuthorizer(null, () -> AclIndex.EMPTY);

  private static final Logger AUDIT = LoggerFactory.getLogger("kafka.authorizer.logger");

  private final StandardAuthorizer authorizer;
  private final Supplier<AclIndex> acls;

  /**
   * @param authorizer the rules, or null for none (everything allowed)
   * @param acls the ACLs of the current metadata image
   */
  public RequestAuthorizer(StandardAuthorizer authorizer, Supplier<AclIndex> acls) {
    this.authorizer = authorizer;
    this.acls = acls;
  }

  /** Whether an authorizer is configured; without one every check passes. */
  public boolean enabled() {
    return authorizer != null;
  }

  /** May the request perform {@code operation} on the resource? Logged for the audit trail. */
  public boolean authorize(
      RequestContext context, AclOperation operation, ResourceType type, String name) {
    return decide(context, operation, type, name, true);
  }

  /** As {@link #authorize}, for a resource the request did not name (logged at TRACE only). */
  public boolean authorizeQuietly(
      RequestContext context, AclOperation operation, ResourceType type, String name) {
    return decide(context, operation, type, name, false);
  }

  /** May the request perform {@code operation} on the cluster? */
  public boolean authorizeCluster(RequestContext context, AclOperation operation) {
    return decide(context, operation, ResourceType.CLUSTER, StandardAuthorizer.CLUSTER_NAME, true);
  }

  /** A cluster check that does not log a denial: when another permission may still allow. */
  public boolean authorizeClusterQuietly(RequestContext context, AclOperation operation) {
    return decide(context, operation, ResourceType.CLUSTER, StandardAuthorizer.CLUSTER_NAME, false);
  }

  /**
   * May the request perform {@code operation} on some resource of a type (an idempotent producer's
   * WRITE on any topic)? Not logged: it only decides whether another check is needed.
   */
  public boolean authorizeAny(RequestContext context, AclOperation operation, ResourceType type) {
    if (authorizer == null || context.principal() == CLUSTER_INTERNAL) {
      return true;
    }
    return authorizer.authorizeAny(
        acls.get(), context.principal(), context.clientAddress().getHostAddress(), operation, type);
  }

  private boolean decide(
      RequestContext context,
      AclOperation operation,
      ResourceType type,
      String name,
      boolean named) {
    if (authorizer == null || context.principal() == CLUSTER_INTERNAL) {
      return true;
    }
    String host = context.clientAddress().getHostAddress();
    Decision decision =
        authorizer.authorize(acls.get(), context.principal(), host, operation, type, name);
    if (decision.allowed()) {
      if (named && AUDIT.isDebugEnabled()) {
        AUDIT.debug(audit(context, host, operation, type, name, decision));
      } else if (AUDIT.isTraceEnabled()) {
        AUDIT.trace(audit(context, host, operation, type, name, decision));
      }
    } else if (named) {
      AUDIT.info(audit(context, host, operation, type, name, decision));
    } else if (AUDIT.isTraceEnabled()) {
      AUDIT.trace(audit(context, host, operation, type, name, decision));
    }
    return decision.allowed();
  }

  private static String audit(
      RequestContext context,
      String host,
      AclOperation operation,
      ResourceType type,
      String name,
      Decision decision) {
    return "Principal = "
        + context.principal()
        + " is "
        + (decision.allowed() ? "Allowed" : "Denied")
        + " operation = "
        + operation
        + " from host = "
        + host
        + " on resource = "
        + type
        + ":"
        + name
        + " for request = "
        + context.apiKey().name
        + " based on rule "
        + decision.rule();
  }

  /**
   * Why the request may not read or change a resource's configs ({@code DESCRIBE_CONFIGS} or {@code
   * ALTER_CONFIGS}: a topic's on the topic, a broker's on the cluster, a group's on the group), or
   * null when it may. Other resource types are left to the handler, which refuses them.
   */
  public ApiFailure configsRefusal(
      RequestContext context, byte resourceType, String resourceName, AclOperation operation) {
    ConfigResource.Type type = ConfigResource.Type.forId(resourceType);
    if (type == ConfigResource.Type.TOPIC
        && !authorize(context, operation, ResourceType.TOPIC, resourceName)) {
      return ApiFailure.of(Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    if ((type == ConfigResource.Type.BROKER || type == ConfigResource.Type.BROKER_LOGGER)
        && !authorizeCluster(context, operation)) {
      return ApiFailure.of(Errors.CLUSTER_AUTHORIZATION_FAILED);
    }
    if (type == ConfigResource.Type.GROUP
        && !authorize(context, operation, ResourceType.GROUP, resourceName)) {
      return ApiFailure.of(Errors.GROUP_AUTHORIZATION_FAILED);
    }
    return null;
  }
}
