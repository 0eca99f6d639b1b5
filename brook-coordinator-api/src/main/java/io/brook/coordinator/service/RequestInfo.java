package io.brook.coordinator.service;

/**
 * What a coordinator needs to know about a request besides its body: plain values the broker's API
 * layer takes from the connection and the request header.
 *
 * @param apiVersion the request's version, which decides the response's shape
 * @param clientId the header's client id, "" when it has none
 * @param clientHost the peer's address as Kafka shows it in group descriptions ({@code /1.2.3.4})
 * @param connectionId the connection's id, for state tied to the connection (see {@link
 *     GroupCoordinatorService#onConnectionClosed})
 */
public record RequestInfo(
    short apiVersion, String clientId, String clientHost, String connectionId) {
  public RequestInfo {
    clientId = clientId == null ? "" : clientId;
  }
}
