package io.brook.protocol.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.network.KafkaNetworkServer;
import io.brook.protocol.network.ListenerSecurity;
import io.brook.protocol.network.Transport;
import io.brook.protocol.testing.WireClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The steps of SASL exchanges run off the event loops: with one network thread (every connection on
 * the same event loop), many SCRAM handshakes whose credential lookups are held up do not stop
 * another connection being served; once the lookups go on, every handshake completes.
 */
@Timeout(60)
class SaslOffEventLoopIT {
  private static final String LISTENER = "SASL_PLAINTEXT";
  private static final ScramMechanism MECHANISM = ScramMechanism.SCRAM_SHA_256;
  private static final int HANDSHAKES = 8;

  @Test
  void anotherConnectionOnTheSameLoopIsServedWhileScramHandshakesAreHeldUp() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger lookups = new AtomicInteger();
    ScramCredential credential = new ScramFormatter(MECHANISM).generateCredential("secret", 4096);
    ScramCredentialStore slowStore =
        (user, mechanism) -> {
          lookups.incrementAndGet();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return credential;
        };
    SaslListenerConfig sasl =
        new SaslListenerConfig(
            Map.of(MECHANISM.mechanismName(), ScramServer.factory(MECHANISM, slowStore, false)),
            SaslListenerConfig.DEFAULT_MAX_RECEIVE_SIZE,
            0,
            0);
    NetworkConfig config =
        NetworkConfig.builder().listener(LISTENER, "127.0.0.1", 0).numNetworkThreads(1).build();
    List<WireClient> clients = new ArrayList<>();
    try (KafkaNetworkServer server =
        KafkaNetworkServer.start(
            config,
            new ApiRegistry(SaslApis.handlers()),
            Transport.detect(),
            listener -> ListenerSecurity.PLAINTEXT.withSasl(sasl))) {
      int port = server.boundPort(LISTENER);
      try {
        // Given: SCRAM handshakes whose credential lookups do not return
        for (int i = 0; i < HANDSHAKES; i++) {
          WireClient client = WireClient.connect(port);
          clients.add(client);
          SaslHandshakeResponseData handshake =
              client
                  .roundTrip(
                      new SaslHandshakeRequestData().setMechanism(MECHANISM.mechanismName()),
                      (short) 1)
                  .as(SaslHandshakeResponseData.class);
          assertThat(handshake.errorCode()).isEqualTo(Errors.NONE.code());
          client.send(
              new SaslAuthenticateRequestData()
                  .setAuthBytes(
                      new ScramMessages.ClientFirstMessage("user" + i, "nonce" + i, Map.of())
                          .toBytes()),
              (short) 2);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> lookups.get() > 0);

        // When: another connection on the same (only) event loop asks for ApiVersions
        try (WireClient other = WireClient.connect(port)) {
          ApiVersionsResponseData versions =
              other
                  .roundTrip(new ApiVersionsRequestData(), (short) 3)
                  .as(ApiVersionsResponseData.class);

          // Then: it is answered while the lookups are still held up
          assertThat(versions.errorCode()).isEqualTo(Errors.NONE.code());
          assertThat(release.getCount()).isEqualTo(1);
        }
      } finally {
        release.countDown();
      }

      // And once they go on, every handshake gets its server-first message
      for (int i = 0; i < HANDSHAKES; i++) {
        SaslAuthenticateResponseData first =
            clients
                .get(i)
                .receive(ApiKeys.SASL_AUTHENTICATE, (short) 2)
                .as(SaslAuthenticateResponseData.class);
        assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(new String(first.authBytes(), StandardCharsets.UTF_8)).startsWith("r=nonce" + i);
      }
      assertThat(lookups.get()).isEqualTo(HANDSHAKES);
    } finally {
      for (WireClient client : clients) {
        client.close();
      }
    }
  }
}
