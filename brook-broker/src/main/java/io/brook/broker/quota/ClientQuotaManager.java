package io.brook.broker.quota;

import io.brook.broker.api.FetchHandler;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import io.brook.protocol.RequestThrottler;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.metrics.stats.TokenBucket;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.utils.Time;

/**
 * The client quotas of one broker (KIP-13, KIP-55, KIP-124), with Kafka's configs and metrics:
 * produce bytes appended, fetch bytes returned and the share of a thread spent on a client's
 * requests are charged per the entity whose quota applies ({@link QuotaEntities}). Quotas follow
 * the metadata image ({@link #onMetadata}).
 *
 * <p>Enforcement is a token bucket per entity and quota (kafka-clients' {@link TokenBucket}, as
 * Kafka uses for {@code controller_mutation_rate}), holding {@code quota × (quota.window.num − 1) ×
 * quota.window.size.seconds} and refilled continuously at the quota. Every request is charged; one
 * that leaves the bucket in debt is throttled for the time the debt takes to refill ({@link
 * ThrottleTime#ofDebt}), so a saturating client is slowed by about its request's size over the
 * quota at every request: a steady rate. Kafka's sampled {@link Rate} admits the same burst but
 * then lets a saturating client through in bursts whenever an old sample leaves the window; the
 * rate is still measured here, for the {@code byte-rate} metrics and the fair share.
 *
 * <p>Replication is never throttled: requests only brokers send (cluster actions) and followers'
 * fetches are not recorded. Thread-safe: called from every event loop.
 */
public final class ClientQuotaManager implements RequestThrottler {
  /** Clients whose resolved quotas are cached; past it the cache starts over. */
  private static final int MAX_CACHED_CLIENTS = 10_000;

  private static final double NANOS_TO_PERCENTAGE = 100.0 / TimeUnit.SECONDS.toNanos(1);

  private final Metrics metrics;
  private final Time time;
  private final int windowNum;
  private final int windowSizeSeconds;

  /** The broker-wide fair share of produce bandwidth; null when off. */
  private final FairShare fairShare;

  private final AppliedQuotas quotas = new AppliedQuotas();

  /** Bumped on every quota change: cached clients resolve their quotas again. */
  private volatile long generation;

  private final ConcurrentHashMap<ClientKey, Client> clients = new ConcurrentHashMap<>();

  /**
   * @param metrics where the per-entity sensors are registered (Kafka's {@code Produce}, {@code
   *     Fetch} and {@code Request} groups)
   * @param windowNum {@code quota.window.num}
   * @param windowSizeSeconds {@code quota.window.size.seconds}
   */
  public ClientQuotaManager(Metrics metrics, Time time, int windowNum, int windowSizeSeconds) {
    this(metrics, time, windowNum, windowSizeSeconds, 0);
  }

  /**
   * @param fairShareBytesPerSecond {@code brook.quota.fair.share.bytes.per.second}: the produce
   *     bytes per second past which this broker shares its bandwidth fairly ({@link FairShare}), 0
   *     for never
   */
  public ClientQuotaManager(
      Metrics metrics,
      Time time,
      int windowNum,
      int windowSizeSeconds,
      long fairShareBytesPerSecond) {
    this.metrics = metrics;
    this.time = time;
    this.windowNum = windowNum;
    this.windowSizeSeconds = windowSizeSeconds;
    this.fairShare =
        fairShareBytesPerSecond > 0
            ? new FairShare(metrics, fairShareBytesPerSecond, windowNum, windowSizeSeconds)
            : null;
  }

  /** Applies the quotas of a new metadata image; cheap when they did not change. */
  public void onMetadata(MetadataImage image) {
    if (quotas.apply(image)) {
      synchronized (this) {
        generation++;
      }
    }
  }

  @Override
  public int onAnswered(
      RequestContext context,
      ApiMessage request,
      int requestBytes,
      ApiMessage response,
      long handlerNanos) {
    ApiKeys api = context.apiKey();
    if (api.clusterAction
        || api == ApiKeys.FETCH && FetchHandler.replicaId((FetchRequestData) request) >= 0) {
      return 0;
    }
    QuotaEntities current = quotas.entities();
    long nowMs = time.milliseconds();
    Client client = client(context);
    long throttleMs = 0;
    if (current.enabled(QuotaType.REQUEST.key)) {
      throttleMs = client.record(QuotaType.REQUEST, handlerNanos * NANOS_TO_PERCENTAGE, nowMs);
    }
    if (api == ApiKeys.PRODUCE) {
      throttleMs = Math.max(throttleMs, client.record(QuotaType.PRODUCE, requestBytes, nowMs));
      if (fairShare != null) {
        throttleMs = Math.max(throttleMs, client.overFairShare(requestBytes, nowMs));
      }
    } else if (api == ApiKeys.FETCH && response instanceof FetchResponseData fetched) {
      throttleMs =
          Math.max(throttleMs, client.record(QuotaType.FETCH, recordBytes(fetched), nowMs));
    }
    return (int) Math.min(throttleMs, maxThrottleMs());
  }

  /**
   * The most one consumer fetch may return: what its {@code consumer_byte_rate} allows over the
   * complete windows of a quota ({@code quota × (quota.window.num − 1) × window}), as Kafka caps a
   * fetch; {@link Integer#MAX_VALUE} without a quota.
   */
  public int fetchQuotaWindowBytes(RequestContext context) {
    QuotaEntities current = quotas.entities();
    if (!current.enabled(QuotaType.FETCH.key)) {
      return Integer.MAX_VALUE;
    }
    QuotaEntities.Resolved resolved =
        current.resolve(QuotaType.FETCH.key, user(context), context.clientId());
    if (resolved.unlimited()) {
      return Integer.MAX_VALUE;
    }
    double bytes = resolved.bound() * burstWindows() * windowSizeSeconds;
    return (int) Math.min(Integer.MAX_VALUE, Math.max(1, bytes));
  }

  /** Kafka's cap: never throttled longer than the whole quota window. */
  private long maxThrottleMs() {
    return TimeUnit.SECONDS.toMillis((long) windowNum * windowSizeSeconds);
  }

  private static long recordBytes(FetchResponseData response) {
    long bytes = 0;
    for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
      for (FetchResponseData.PartitionData partition : topic.partitions()) {
        if (partition.records() != null) {
          bytes += partition.records().sizeInBytes();
        }
      }
    }
    return bytes;
  }

  private static String user(RequestContext context) {
    return context.principal().getName();
  }

  private Client client(RequestContext context) {
    ClientKey key = new ClientKey(user(context), context.clientId());
    Client client = clients.get(key);
    if (client == null) {
      if (clients.size() >= MAX_CACHED_CLIENTS) {
        clients.clear();
      }
      client = clients.computeIfAbsent(key, Client::new);
    }
    return client;
  }

  private record ClientKey(String user, String clientId) {}

  /** The produce rates of the entities that produced within the window, for the fair share. */
  private double[] producerRates() {
    Set<Sensors> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Client client : clients.values()) {
      Sensors s = client.existing(QuotaType.PRODUCE);
      if (s != null) {
        seen.add(s);
      }
    }
    double[] rates = new double[seen.size()];
    int n = 0;
    for (Sensors s : seen) {
      double rate = FairShare.rateNow(s.rateMetric());
      if (rate > 0) {
        rates[n++] = rate;
      }
    }
    return Arrays.copyOf(rates, n);
  }

  /** One (user, client-id)'s sensors, resolved against the quotas of one generation. */
  private final class Client {
    private final ClientKey key;
    private final Map<QuotaType, Sensors> sensors = new EnumMap<>(QuotaType.class);
    private long resolvedGeneration = -1;

    Client(ClientKey key) {
      this.key = key;
    }

    /**
     * Records {@code value} against quota {@code type}: into the rate, and out of the bucket when
     * the entity has a quota. The throttle time, 0 while the bucket is not in debt.
     */
    long record(QuotaType type, double value, long nowMs) {
      Sensors s = sensors(type);
      try {
        s.sensor().record(value, nowMs);
        return 0;
      } catch (QuotaViolationException e) {
        long throttleMs = ThrottleTime.ofDebt(e);
        s.throttleTime.record(throttleMs, nowMs);
        return throttleMs;
      }
    }

    /**
     * The throttle time of this client's produce rate over the fair share's water level, 0 while
     * the broker is not saturated or the client is below the level.
     */
    long overFairShare(long bytes, long nowMs) {
      fairShare.record(bytes, nowMs);
      double level = fairShare.level(nowMs, ClientQuotaManager.this::producerRates);
      if (level == Double.MAX_VALUE) {
        return 0;
      }
      Sensors s = sensors(QuotaType.PRODUCE);
      KafkaMetric rate = s.rateMetric();
      double value = FairShare.rateNow(rate);
      if (value <= level) {
        return 0;
      }
      long windowMs = ((Rate) rate.measurable()).windowSize(rate.config(), nowMs);
      long throttleMs = ThrottleTime.of(value, level, windowMs);
      s.throttleTime.record(throttleMs, nowMs);
      return throttleMs;
    }

    /** The sensors of {@code type} if this client has recorded against it in this generation. */
    synchronized Sensors existing(QuotaType type) {
      return resolvedGeneration == generation ? sensors.get(type) : null;
    }

    private synchronized Sensors sensors(QuotaType type) {
      long g = generation;
      if (g != resolvedGeneration) {
        sensors.clear();
        resolvedGeneration = g;
      }
      return sensors.computeIfAbsent(type, this::create);
    }

    /**
     * The entity's sensors, created or shared with other clients of the same entity: one sensor
     * with the reported {@code byte-rate} ({@code request-time}) and, under a quota, the {@code
     * tokens} bucket that enforces it (the sensor's quota check throws once it is in debt).
     */
    private Sensors create(QuotaType type) {
      QuotaEntities.Resolved resolved =
          quotas.entities().resolve(type.key, key.user(), key.clientId());
      Map<String, String> tags = resolved.metricTags();
      String suffix = resolved.userTag() + ":" + resolved.clientIdTag();
      MetricConfig rateConfig =
          new MetricConfig().timeWindow(windowSizeSeconds, TimeUnit.SECONDS).samples(windowNum);
      synchronized (metrics) {
        Sensor sensor =
            metrics.sensor(
                type.group + "-" + suffix, rateConfig, QuotaSensors.INACTIVE_SENSOR_SECONDS);
        var rateName =
            metrics.metricName(
                type.metric, type.group, "Tracking " + type.metric + " per user/client-id", tags);
        KafkaMetric rate = metrics.metric(rateName);
        if (rate == null) {
          sensor.add(rateName, new Rate(), rateConfig);
          rate = metrics.metric(rateName);
        }
        var tokensName =
            metrics.metricName(
                "tokens", type.group, "Tracking remaining tokens per user/client-id", tags);
        KafkaMetric tokens = metrics.metric(tokensName);
        MetricConfig bucketConfig = bucketConfig(resolved);
        if (tokens != null) {
          tokens.config(bucketConfig); // the entity's quota changed (null: no longer bounded)
        } else if (bucketConfig.quota() != null) {
          sensor.add(tokensName, new TokenBucket(), bucketConfig);
        }
        return new Sensors(sensor, QuotaSensors.throttleTime(metrics, type, suffix, tags), rate);
      }
    }
  }

  /**
   * The bucket of a quota: {@code quota.window.num − 1} windows of the quota, the most Kafka's
   * sampled rate admits from idle and what one fetch may return ({@link #fetchQuotaWindowBytes}),
   * so clients that burst within their quota on Kafka are not throttled here either.
   */
  private MetricConfig bucketConfig(QuotaEntities.Resolved resolved) {
    return new MetricConfig()
        .timeWindow(windowSizeSeconds, TimeUnit.SECONDS)
        .samples(burstWindows())
        .quota(resolved.unlimited() ? null : Quota.upperBound(resolved.bound()));
  }

  /** The windows of quota a full bucket holds. */
  private int burstWindows() {
    return Math.max(1, windowNum - 1);
  }

  /**
   * @param sensor records the entity's usage: its rate and, under a quota, its bucket
   * @param rateMetric the reported rate
   */
  private record Sensors(Sensor sensor, Sensor throttleTime, KafkaMetric rateMetric) {}
}
