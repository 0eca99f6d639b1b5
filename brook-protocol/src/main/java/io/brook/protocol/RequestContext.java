package io.brook.protocol;

import java.net.InetAddress;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Who sent a request and how.
 *
 * @param header the decoded request header
 * @param listenerName the listener the connection arrived on (for advertised addresses)
 * @param clientAddress the peer's address
 * @param connectionId a unique id of the connection, for logs and per-connection state
 * @param receivedNanos {@code System.nanoTime()} when the request was read off the socket
 * @param requestBytesDone see {@link #releaseRequestBytes()}
 * @param principal who the connection authenticated as ({@code User:CN=...} from a TLS client
 *     certificate), {@link KafkaPrincipal#ANONYMOUS} when nobody authenticated (PLAINTEXT, TLS
 *     without a client certificate); see {@code io.brook.protocol.network.ConnectionPrincipal};
 *     what the authorizer decides on
 */
public record RequestContext(
    RequestHeader header,
    String listenerName,
    InetAddress clientAddress,
    String connectionId,
    long receivedNanos,
    Runnable requestBytesDone,
    KafkaPrincipal principal) {

  public RequestContext {
    java.util.Objects.requireNonNull(principal, "principal");
  }

  /** A context of an unauthenticated connection: {@link KafkaPrincipal#ANONYMOUS}. */
  public RequestContext(
      RequestHeader header,
      String listenerName,
      InetAddress clientAddress,
      String connectionId,
      long receivedNanos,
      Runnable requestBytesDone) {
    this(
        header,
        listenerName,
        clientAddress,
        connectionId,
        receivedNanos,
        requestBytesDone,
        KafkaPrincipal.ANONYMOUS);
  }

  /** A context whose request bytes are released only when the request is answered. */
  public RequestContext(
      RequestHeader header,
      String listenerName,
      InetAddress clientAddress,
      String connectionId,
      long receivedNanos) {
    this(header, listenerName, clientAddress, connectionId, receivedNanos, () -> {});
  }

  /**
   * Tells the network layer that the handler will not read the request's bytes again (for example a
   * produce whose appends are done and that now waits for its replicas), so their request memory
   * ({@code queued.max.request.bytes}) is given back before the answer. Without it a request holds
   * its memory until answered, and requests waiting for replication could hold the whole budget
   * while the followers' fetches that would complete them wait for memory. Any thread; calling it
   * more than once, or after the answer, does nothing.
   */
  public void releaseRequestBytes() {
    requestBytesDone.run();
  }

  public ApiKeys apiKey() {
    return header.apiKey();
  }

  public short apiVersion() {
    return header.apiVersion();
  }

  public String clientId() {
    return header.clientId();
  }

  public int correlationId() {
    return header.correlationId();
  }
}
