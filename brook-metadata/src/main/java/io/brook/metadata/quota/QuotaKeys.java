package io.brook.metadata.quota;

import java.util.Set;

/** Kafka's client quota entity types and quota keys (KIP-546), shared by both sides of a node. */
public final class QuotaKeys {
  public static final String USER = "user";
  public static final String CLIENT_ID = "client-id";
  public static final String IP = "ip";

  public static final String PRODUCER_BYTE_RATE = "producer_byte_rate";
  public static final String CONSUMER_BYTE_RATE = "consumer_byte_rate";
  public static final String REQUEST_PERCENTAGE = "request_percentage";
  public static final String CONTROLLER_MUTATION_RATE = "controller_mutation_rate";
  public static final String CONNECTION_CREATION_RATE = "connection_creation_rate";

  /** The quotas a user and/or client-id entity takes. */
  public static final Set<String> CLIENT_KEYS =
      Set.of(PRODUCER_BYTE_RATE, CONSUMER_BYTE_RATE, REQUEST_PERCENTAGE, CONTROLLER_MUTATION_RATE);

  /** The quotas an ip entity takes. */
  public static final Set<String> IP_KEYS = Set.of(CONNECTION_CREATION_RATE);

  /** Quotas Kafka types as longs: their values must be whole numbers. */
  public static final Set<String> WHOLE_NUMBER_KEYS =
      Set.of(PRODUCER_BYTE_RATE, CONSUMER_BYTE_RATE, CONNECTION_CREATION_RATE);

  private QuotaKeys() {}
}
