package io.brook.protocol;

import java.net.InetAddress;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Who sent a request and how.
 *
 * @param header the decoded request header
 * @param listenerName the listener the connection arrived on (for advertised addresses)
 * @param clientAddress the peer's address
 * @param connectionId a unique id of the connection, for logs and per-connection state
 * @param receivedNanos {@code System.nanoTime()} when the request was read off the socket
 */
public record RequestContext(
    RequestHeader header,
    String listenerName,
    InetAddress clientAddress,
    String connectionId,
    long receivedNanos) {

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
