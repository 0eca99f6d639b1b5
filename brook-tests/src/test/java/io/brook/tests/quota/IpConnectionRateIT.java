package io.brook.tests.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code connection_creation_rate} quota of {@code ip} entities (KIP-612), set with Kafka's
 * Admin API on a running broker: connections from an address over its rate are closed without an
 * answer, other addresses and connections already open are served, and removing the quota lets the
 * address in again, all without a restart. Connections come from distinct loopback addresses
 * (127.0.0.x) so the Admin client on 127.0.0.1 stays outside the quota under test.
 */
@Timeout(120)
class IpConnectionRateIT {
  @RegisterExtension
  static final BrookExtension BROOK = new BrookExtension(EmbeddedBrook.builder());

  private static final String OTHER_ADDRESS = "127.0.0.1";

  /** More than the quotas below let through at once (1 a second over 10 s). */
  private static final int ATTEMPTS = 25;

  @AfterEach
  void removeQuotas() throws Exception {
    Map<String, String> defaultIp = new HashMap<>();
    defaultIp.put(ClientQuotaEntity.IP, null);
    alter(defaultIp, null);
    alter(Map.of(ClientQuotaEntity.IP, "127.0.0.2"), null);
    alter(Map.of(ClientQuotaEntity.IP, OTHER_ADDRESS), null);
  }

  @Test
  void anAddressOverItsRateIsClosedWhileOthersAreServedUntilTheQuotaIsRemoved() throws Exception {
    String limited = "127.0.0.2";
    try (Socket openBefore = connect(limited)) {
      // Given: one connection a second for 127.0.0.2
      alter(Map.of(ClientQuotaEntity.IP, limited), 1.0);

      // When: it connects repeatedly, then: past its rate it is refused
      await().atMost(Duration.ofSeconds(30)).until(() -> refusedWithin(limited, ATTEMPTS));

      // Another address, and the connection it opened before, are served
      assertThat(refusedWithin(OTHER_ADDRESS, ATTEMPTS)).isFalse();
      assertThat(answers(openBefore)).isTrue();

      // And once the quota is removed the address connects again
      alter(Map.of(ClientQuotaEntity.IP, limited), null);
      await().atMost(Duration.ofSeconds(30)).until(() -> !refusedWithin(limited, ATTEMPTS));
    }
  }

  @Test
  void theDefaultIpEntityLimitsEveryAddressWithoutAQuotaOfItsOwn() throws Exception {
    // Given: one a second for every address, but 127.0.0.1 unlimited in effect
    Map<String, String> defaultIp = new HashMap<>();
    defaultIp.put(ClientQuotaEntity.IP, null);
    alter(Map.of(ClientQuotaEntity.IP, OTHER_ADDRESS), 1_000_000.0);
    alter(defaultIp, 1.0);

    // Then: 127.0.0.3 is held to the default, 127.0.0.1 to its own quota
    await().atMost(Duration.ofSeconds(30)).until(() -> refusedWithin("127.0.0.3", ATTEMPTS));
    assertThat(refusedWithin(OTHER_ADDRESS, ATTEMPTS)).isFalse();
  }

  /**
   * Opens up to {@code count} connections from {@code source}, one after another, until the broker
   * closes one without answering: whether it did.
   */
  private static boolean refusedWithin(String source, int count) throws IOException {
    for (int i = 0; i < count; i++) {
      try (Socket socket = connect(source)) {
        if (!answers(socket)) {
          return true;
        }
      }
    }
    return false;
  }

  private static Socket connect(String source) throws IOException {
    String[] hostPort = BROOK.bootstrapServers().split(":");
    Socket socket =
        new Socket(hostPort[0], Integer.parseInt(hostPort[1]), InetAddress.getByName(source), 0);
    socket.setSoTimeout(30_000);
    return socket;
  }

  /** Whether the broker answers an ApiVersions request on {@code socket} (false: it closed it). */
  private static boolean answers(Socket socket) throws IOException {
    try {
      OutputStream out = socket.getOutputStream();
      out.write(RawKafkaClient.frame(new ApiVersionsRequestData(), (short) 3, 1));
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int length = in.readInt();
      in.readFully(new byte[length]);
      return true;
    } catch (java.io.EOFException | java.net.SocketException e) {
      return false;
    }
  }

  /** Sets (or with null removes) the connection rate of an ip entity. */
  private static void alter(Map<String, String> entity, Double rate) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers()))) {
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      new ClientQuotaEntity(entity),
                      List.of(new ClientQuotaAlteration.Op("connection_creation_rate", rate)))))
          .all()
          .get();
    }
  }
}
