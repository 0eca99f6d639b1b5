package io.brook.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Option;

/**
 * Where the cluster is and how to connect, shared by every command that talks to it. The brokers
 * come from {@code --brokers}, else the profile named by {@code --profile}, else {@code
 * $BROOK_PROFILE}, else the current profile ({@code brook profile use}), else {@code
 * localhost:9092}.
 */
final class ClientOptions {

  static final String DEFAULT_BROKERS = "localhost:9092";

  @Option(
      names = {"-b", "--brokers", "--bootstrap-server"},
      paramLabel = "HOST:PORT[,...]",
      description = "Bootstrap servers (default: the profile's, else " + DEFAULT_BROKERS + ").")
  String brokers;

  @Option(
      names = "--profile",
      paramLabel = "NAME",
      description = "Connection profile to use (see `brook profile`).")
  String profile;

  @Option(
      names = "--command-config",
      paramLabel = "FILE",
      description = "Kafka client properties (security.protocol, sasl.*, ssl.*, ...).")
  Path commandConfig;

  @Option(
      names = "--timeout-ms",
      paramLabel = "MS",
      defaultValue = "30000",
      description = "How long to wait for the cluster (default: ${DEFAULT-VALUE}).")
  int timeoutMs;

  /** Client properties: the command config's, then the bootstrap servers. */
  Properties clientProperties() {
    Profiles.Profile chosen = resolveProfile();
    Properties props = new Properties();
    Path configFile = commandConfig;
    if (configFile == null && chosen != null && chosen.commandConfig() != null) {
      configFile = Path.of(chosen.commandConfig());
    }
    if (configFile != null) {
      try (InputStream in = Files.newInputStream(configFile)) {
        props.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + configFile, e);
      }
    }
    String servers = brokers;
    if (servers == null) {
      servers = chosen != null ? chosen.brokers() : DEFAULT_BROKERS;
    }
    props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, servers);
    props.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "brook-cli");
    return props;
  }

  Admin admin() {
    Properties props = clientProperties();
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(timeoutMs));
    props.putIfAbsent(
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(Math.min(timeoutMs, 30_000)));
    return Admin.create(props);
  }

  private Profiles.Profile resolveProfile() {
    Profiles profiles = Profiles.load();
    String name = profile != null ? profile : System.getenv("BROOK_PROFILE");
    if (name != null && !name.isEmpty()) {
      return profiles
          .get(name)
          .orElseThrow(
              () -> new CliException("no profile named '" + name + "' in " + profiles.file()));
    }
    return profiles.current().orElse(null);
  }
}
