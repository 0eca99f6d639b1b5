package io.brook.broker.quota;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quota.QuotaKeys;
import io.brook.protocol.network.IpConnectionRates;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the {@code connection_creation_rate} quotas of {@code ip} entities (KIP-612) from each
 * metadata image to the network layer's {@link IpConnectionRates}, so a quota set with {@code
 * kafka-configs --entity-type ips} applies to the next connection, without a restart.
 */
public final class IpConnectionQuotas {
  private static final Logger LOG = LoggerFactory.getLogger(IpConnectionQuotas.class);

  private final IpConnectionRates rates;
  private final int windowNum;
  private final int windowSizeSeconds;
  private Map<Map<String, String>, Map<String, Double>> applied;

  /**
   * @param windowNum {@code quota.window.num}
   * @param windowSizeSeconds {@code quota.window.size.seconds}
   */
  public IpConnectionQuotas(IpConnectionRates rates, int windowNum, int windowSizeSeconds) {
    this.rates = rates;
    this.windowNum = windowNum;
    this.windowSizeSeconds = windowSizeSeconds;
  }

  /** Applies the quotas of a new image; cheap when the client quotas did not change. */
  public synchronized void onMetadata(MetadataImage image) {
    Map<Map<String, String>, Map<String, Double>> quotas = image.clientQuotas();
    if (quotas == applied) {
      return;
    }
    applied = quotas;
    Map<InetAddress, Integer> perAddress = new HashMap<>();
    int defaultRate = IpConnectionRates.UNLIMITED;
    for (Map.Entry<Map<String, String>, Map<String, Double>> entry : quotas.entrySet()) {
      Map<String, String> entity = entry.getKey();
      Double rate = entry.getValue().get(QuotaKeys.CONNECTION_CREATION_RATE);
      if (rate == null || entity.size() != 1 || !entity.containsKey(QuotaKeys.IP)) {
        continue;
      }
      String name = entity.get(QuotaKeys.IP);
      int limit = (int) Math.min(rate, IpConnectionRates.UNLIMITED);
      if (name == null) {
        defaultRate = limit;
        continue;
      }
      try {
        // The controller accepts only literal addresses: parsed here, never looked up.
        perAddress.put(InetAddress.getByName(name), limit);
      } catch (UnknownHostException e) {
        LOG.warn("Ignoring connection_creation_rate of a non-address ip entity name={}", name);
      }
    }
    rates.update(
        new IpConnectionRates.Quotas(perAddress, defaultRate, windowNum, windowSizeSeconds));
  }
}
