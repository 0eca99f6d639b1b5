package io.brook.server;

import io.brook.protocol.network.ListenerSecurity;
import io.brook.protocol.tls.SslEngines;
import io.brook.protocol.tls.TlsListenerSecurity;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Endpoint;
import io.brook.server.config.HttpApiConfig;
import io.brook.server.config.ListenerTls;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's TLS: the engines of each TLS data listener and of its own connections to the
 * inter-broker listener, loaded at start-up (a bad keystore stops start-up, naming the key), and a
 * periodic check ({@code brook.ssl.store.reload.interval.ms}) that reloads a keystore or truststore
 * file that changed, so certificates rotate without a restart.
 */
final class NodeTls implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeTls.class);

  private final Map<String, SslEngines> listeners;
  private final SslEngines interBrokerClient;
  private final SslEngines http;
  private final ScheduledFuture<?> reloads;

  private NodeTls(
      Map<String, SslEngines> listeners,
      SslEngines interBrokerClient,
      SslEngines http,
      ScheduledExecutorService scheduler,
      long reloadIntervalMs) {
    this.listeners = listeners;
    this.interBrokerClient = interBrokerClient;
    this.http = http;
    this.reloads =
        listeners.isEmpty() && interBrokerClient == null && http == null
            ? null
            : scheduler.scheduleWithFixedDelay(
                this::reloadChanged, reloadIntervalMs, reloadIntervalMs, TimeUnit.MILLISECONDS);
  }

  /** Loads the stores of every TLS listener of {@code config} (controller listeners aside). */
  static NodeTls start(BrokerConfig config, ScheduledExecutorService scheduler) {
    Map<String, SslEngines> listeners = new LinkedHashMap<>();
    SslEngines client = null;
    SslEngines http = null;
    try {
      for (Endpoint endpoint : config.listeners()) {
        String name = endpoint.listenerName();
        if (ListenerTls.usesTls(endpoint.securityProtocol())
            && !config.controllerListenerNames().contains(name)) {
          listeners.put(name, SslEngines.createServer(name, ListenerTls.settings(config, name)));
        }
      }
      String interBroker = config.interBrokerListenerName();
      SecurityProtocol protocol = config.securityProtocolMap().get(interBroker);
      if (config.isBroker() && protocol != null && ListenerTls.usesTls(protocol)) {
        // Kafka's inter-broker client takes the inter-broker listener's settings: the node's own
        // keystore (presented when the peer requires client auth) and its truststore.
        client =
            SslEngines.create(
                "inter-broker client (" + interBroker + ")",
                ListenerTls.settings(config, interBroker));
      }
      if (config.isBroker() && config.httpApi().tls()) {
        String name = HttpApiConfig.TLS_LISTENER_NAME;
        http = SslEngines.createServer(name, ListenerTls.settings(config, name));
      }
    } catch (RuntimeException e) {
      listeners.values().forEach(SslEngines::close);
      if (client != null) {
        client.close();
      }
      throw e;
    }
    return new NodeTls(
        listeners, client, http, scheduler, ListenerTls.storeReloadIntervalMs(config));
  }

  /** What a data listener puts in front of the Kafka protocol. */
  ListenerSecurity listenerSecurity(String listenerName) {
    SslEngines engines = listeners.get(listenerName);
    return engines == null
        ? ListenerSecurity.PLAINTEXT
        : new TlsListenerSecurity(listenerName, engines);
  }

  /** The engines of this node's connections to other brokers, or null when they are plaintext. */
  SslEngines interBrokerClient() {
    return interBrokerClient;
  }

  /** The HTTPS API listener's engines, or null when it is plain HTTP or absent. */
  SslEngines httpServer() {
    return http;
  }

  private void reloadChanged() {
    List<SslEngines> all = new ArrayList<>(listeners.values());
    if (interBrokerClient != null) {
      all.add(interBrokerClient);
    }
    if (http != null) {
      all.add(http);
    }
    for (SslEngines engines : all) {
      try {
        engines.reloadIfChanged();
      } catch (RuntimeException e) {
        // The next check tries again; the stores in use stay.
        LOG.warn("Checking TLS stores for changes failed engines={}", engines, e);
      }
    }
  }

  @Override
  public void close() {
    if (reloads != null) {
      reloads.cancel(false);
    }
    listeners.values().forEach(SslEngines::close);
    if (interBrokerClient != null) {
      interBrokerClient.close();
    }
    if (http != null) {
      http.close();
    }
  }
}
