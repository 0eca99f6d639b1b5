package io.brook.bench;

import io.brook.broker.quota.ClientQuotaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What quota accounting costs an unthrottled producer: one {@link ClientQuotaManager#onAnswered}
 * per answered Produce request, as every event loop calls it. The end-to-end A/B of the produce
 * benchmark cannot resolve a cost this small on a two-core machine (its rounds spread by 25-50%),
 * so this gives the cost per request, to be set against the requests per second of that benchmark.
 *
 * <ul>
 *   <li>{@code none}: no quota configured anywhere (the byte-rate metrics are still kept per
 *       client, as Kafka keeps them);
 *   <li>{@code other}: a {@code producer_byte_rate} set for another client id only;
 *   <li>{@code own}: a {@code producer_byte_rate} for this client id, far above what it sends, so
 *       it is charged to its token bucket but never throttled.
 * </ul>
 */
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class QuotaAccountingBenchmark {
  private static final String CLIENT_ID = "producer-1";

  @Param({"none", "other", "own"})
  public String quota;

  private Metrics metrics;
  private ClientQuotaManager quotas;
  private RequestContext context;
  private final ProduceRequestData request = new ProduceRequestData();
  private final ProduceResponseData response = new ProduceResponseData();

  @Setup(Level.Trial)
  public void setUp() {
    metrics = new Metrics();
    quotas = new ClientQuotaManager(metrics, Time.SYSTEM, 11, 1);
    switch (quota) {
      case "other" -> quotas.onMetadata(producerByteRate("backfill", 1_048_576));
      case "own" -> quotas.onMetadata(producerByteRate(CLIENT_ID, 1e15));
      default -> {}
    }
    context =
        new RequestContext(
            new RequestHeader(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion(), CLIENT_ID, 1),
            "PLAINTEXT",
            InetAddress.getLoopbackAddress(),
            "c1",
            System.nanoTime());
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    metrics.close();
  }

  /** One answered 16 KiB Produce request. */
  @Benchmark
  public int produceRequest() {
    return quotas.onAnswered(context, request, 16_384, response, 20_000);
  }

  private static MetadataImage producerByteRate(String clientId, double bytesPerSecond) {
    return MetadataImage.EMPTY.apply(
        List.of(
            ClientQuotaRecord.of(
                Map.of("client-id", clientId), "producer_byte_rate", bytesPerSecond, false)),
        0);
  }
}
