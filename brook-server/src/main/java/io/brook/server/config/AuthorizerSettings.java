package io.brook.server.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import io.brook.metadata.authorizer.StandardAcl;
import io.brook.metadata.authorizer.StandardAuthorizer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Authorization: whether ACLs are enforced ({@code authorizer.class.name}, only Kafka's {@code
 * StandardAuthorizer} is accepted, implemented by Brook's own classes), who is allowed everything
 * ({@code super.users}) and what a resource without ACLs allows.
 */
final class AuthorizerSettings {
  static final String AUTHORIZER_CLASS_NAME = "authorizer.class.name";
  static final String SUPER_USERS = "super.users";
  static final String ALLOW_EVERYONE_IF_NO_ACL_FOUND = "allow.everyone.if.no.acl.found";

  /** The ZooKeeper-era authorizer, gone from Kafka 4. */
  private static final String ACL_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer";

  private AuthorizerSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.AUTHORIZATION)
        .uses(
            AUTHORIZER_CLASS_NAME,
            STRING,
            "",
            ConfigDef.LambdaValidator.with(
                AuthorizerSettings::checkClassName,
                () -> "empty (no authorization) or " + StandardAuthorizer.CLASS_NAME),
            HIGH,
            "Empty: every request is allowed (Kafka's default). "
                + StandardAuthorizer.CLASS_NAME
                + ": ACLs stored in the metadata log are enforced on every API.")
        .uses(
            SUPER_USERS,
            STRING,
            "",
            ConfigDef.LambdaValidator.with(
                (name, value) -> superUsers(name, (String) value),
                () -> "principals written Type:name, separated by ;"),
            HIGH,
            "Principals allowed everything whatever the ACLs say, for example"
                + " User:admin;User:broker. Brokers' own connections must be among them (or"
                + " hold CLUSTER_ACTION on the cluster).")
        .uses(
            ALLOW_EVERYONE_IF_NO_ACL_FOUND,
            BOOLEAN,
            false,
            null,
            MEDIUM,
            "Whether a resource that no ACL matches is open to everyone; otherwise only super"
                + " users may use it.");
  }

  private static void checkClassName(String name, Object value) {
    String className = value == null ? "" : ((String) value).trim();
    if (className.isEmpty() || className.equals(StandardAuthorizer.CLASS_NAME)) {
      return;
    }
    if (className.equals(ACL_AUTHORIZER)) {
      throw new ConfigException(
          name,
          value,
          "the ZooKeeper-based AclAuthorizer was removed in Kafka 4; use "
              + StandardAuthorizer.CLASS_NAME
              + ", which keeps ACLs in the metadata log");
    }
    throw new ConfigException(
        name, value, "Brook supports only " + StandardAuthorizer.CLASS_NAME + " (or empty)");
  }

  /** The principals of a {@code super.users} value. */
  static List<KafkaPrincipal> superUsers(String name, String value) {
    List<KafkaPrincipal> principals = new ArrayList<>();
    if (value == null) {
      return principals;
    }
    for (String entry : value.split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      try {
        principals.add(StandardAcl.parsePrincipal(entry.trim()));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    }
    return principals;
  }
}
