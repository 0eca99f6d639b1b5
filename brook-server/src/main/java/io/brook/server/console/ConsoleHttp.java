package io.brook.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.broker.api.InProcessApis.Caller;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.QuorumState;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.server.http.BasicAuthenticator;
import io.brook.server.http.BasicCredentials;
import io.brook.server.http.Forwarder;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP side on the admin listener: {@code /console/} serves the page's static files
 * and {@code /console/api/...} its JSON ({@link ConsoleApi}), after the checks {@link
 * ConsoleAccess} calls for. Called on the admin worker thread (checking a SCRAM password is slow on
 * purpose), never on the event loop.
 *
 * <p>Every request that changes something must carry {@code X-Brook-Console: 1}: a browser sends a
 * custom header cross-origin only after a CORS preflight, which this listener never approves, so
 * another site's page cannot make a visitor's browser create or delete topics.
 */
public final class ConsoleHttp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleHttp.class);
  static final String CSRF_HEADER = "X-Brook-Console";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/console/";
  private static final String API = "/console/api/";

  /** What the page's files may load: only this origin, no inline script. */
  private static final String CSP =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

  /** A request as the admin listener read it. */
  @SuppressWarnings("ArrayRecordComponent") // copied once off the Netty buffer, never changed
  public record Request(
      HttpMethod method,
      String uri,
      HttpHeaders headers,
      byte[] body,
      InetAddress peer,
      String id) {}

  /** An answer to write. */
  @SuppressWarnings("ArrayRecordComponent")
  public record Response(
      HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {}

  private final ConsoleAccess access;
  private final BasicAuthenticator authenticator;
  private final ConsoleApi api;
  private final ConsoleAssets assets;
  private final Throughput throughput;

  /** What the console closes with it: its connections to other brokers. */
  private final List<AutoCloseable> owned;

  private ConsoleHttp(
      ConsoleAccess access,
      BasicAuthenticator authenticator,
      ConsoleApi api,
      ConsoleAssets assets,
      Throughput throughput,
      List<AutoCloseable> owned) {
    this.access = access;
    this.authenticator = authenticator;
    this.api = api;
    this.assets = assets;
    this.throughput = throughput;
    this.owned = List.copyOf(owned);
  }

  /** Stops sampling the throughput and closes the connections to other brokers. */
  @Override
  public void close() {
    if (throughput != null) {
      throughput.close();
    }
    for (AutoCloseable c : owned) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("Closing the console's {} failed", c, e);
      }
    }
  }

  /** Whether the console serves: false when {@link ConsoleAccess} refuses it. */
  public boolean serving() {
    return access.mode() != ConsoleAccess.Mode.REFUSED;
  }

  /** Why the console is open, needs a login or is off. */
  public String accessReason() {
    return access.reason();
  }

  /** The console's answer to one request under {@code /console}. */
  public CompletableFuture<Response> handle(Request request) {
    try {
      return serve(request)
          .exceptionally(e -> error(e instanceof CompletionException c ? c.getCause() : e));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(error(e));
    }
  }

  private CompletableFuture<Response> serve(Request request) {
    if (access.mode() == ConsoleAccess.Mode.REFUSED) {
      throw new ConsoleException(HttpResponseStatus.FORBIDDEN, access.reason());
    }
    if (access.mode() == ConsoleAccess.Mode.LOOPBACK
        && !ConsoleAccess.isLoopbackHostHeader(request.headers().get(HttpHeaderNames.HOST))) {
      throw new ConsoleException(
          HttpResponseStatus.FORBIDDEN,
          "the console on a loopback admin listener answers only requests to localhost,"
              + " 127.0.0.1 or [::1]");
    }
    Caller caller = caller(request);
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String path = uri.path();
    if (!path.startsWith(API)) {
      if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
        throw new ConsoleException(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET only");
      }
      return CompletableFuture.completedFuture(asset(request, path));
    }
    if (!request.method().equals(HttpMethod.GET)
        && !"1".equals(request.headers().get(CSRF_HEADER))) {
      throw new ConsoleException(
          HttpResponseStatus.FORBIDDEN,
          "a console request that changes something needs the header " + CSRF_HEADER + ": 1");
    }
    JsonNode body = body(request);
    List<String> segments = segments(path.substring(API.length()));
    return api.route(request.method(), segments, uri.parameters(), body, caller)
        .thenApply(json -> json(HttpResponseStatus.OK, json));
  }

  /** Who the request acts as: the logged-in user, else {@code User:ANONYMOUS}. */
  private Caller caller(Request request) {
    String connectionId = "console-" + request.id();
    if (access.mode() != ConsoleAccess.Mode.LOGIN) {
      return new Caller(KafkaPrincipal.ANONYMOUS, request.peer(), connectionId);
    }
    KafkaPrincipal principal =
        BasicCredentials.authenticate(
            request.headers().get(HttpHeaderNames.AUTHORIZATION),
            authenticator,
            "the console needs a login (a SASL PLAIN or SCRAM user)",
            ConsoleHttp::unauthorized);
    return new Caller(principal, request.peer(), connectionId);
  }

  private static ConsoleException unauthorized(String message) {
    return new ConsoleException(HttpResponseStatus.UNAUTHORIZED, message);
  }

  private Response asset(Request request, String path) {
    if (!path.startsWith(PREFIX)) {
      return redirect();
    }
    ConsoleAssets.Asset asset = assets.get(path.substring(PREFIX.length()));
    if (asset == null) {
      throw ConsoleException.notFound("no such console file: " + path);
    }
    Map<String, String> headers = securityHeaders();
    headers.put("Cache-Control", "no-cache");
    headers.put("ETag", asset.etag());
    if (asset.etag().equals(request.headers().get(HttpHeaderNames.IF_NONE_MATCH))) {
      return new Response(
          HttpResponseStatus.NOT_MODIFIED, asset.contentType(), new byte[0], headers);
    }
    byte[] body = request.method().equals(HttpMethod.HEAD) ? new byte[0] : asset.body();
    return new Response(HttpResponseStatus.OK, asset.contentType(), body, headers);
  }

  /** {@code /} and {@code /console}: to the page. */
  public static Response redirect() {
    Map<String, String> headers = new TreeMap<>();
    headers.put("Location", PREFIX);
    return new Response(
        HttpResponseStatus.FOUND,
        "text/plain; charset=utf-8",
        "see /console/\n".getBytes(StandardCharsets.UTF_8),
        headers);
  }

  private static Map<String, String> securityHeaders() {
    Map<String, String> headers = new TreeMap<>();
    headers.put("Content-Security-Policy", CSP);
    headers.put("X-Content-Type-Options", "nosniff");
    headers.put("Referrer-Policy", "no-referrer");
    return headers;
  }

  private static JsonNode body(Request request) {
    if (request.body().length == 0) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(request.body());
      if (node == null || !node.isObject()) {
        throw ConsoleException.badRequest("the body must be a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw ConsoleException.badRequest("the body is not valid JSON: " + e.getMessage());
    }
  }

  private static List<String> segments(String rawPath) {
    List<String> segments = new ArrayList<>();
    for (String part : rawPath.split("/", -1)) {
      if (!part.isEmpty()) {
        try {
          segments.add(QueryStringDecoder.decodeComponent(part, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          throw ConsoleException.badRequest("malformed path: " + e.getMessage());
        }
      }
    }
    return segments;
  }

  private static Response json(HttpResponseStatus status, JsonNode body) {
    try {
      Map<String, String> headers = securityHeaders();
      headers.put("Cache-Control", "no-store");
      return new Response(status, "application/json", JSON.writeValueAsBytes(body), headers);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Response error(Throwable failure) {
    ConsoleException refusal = ConsoleException.of(failure);
    if (refusal.status().equals(HttpResponseStatus.INTERNAL_SERVER_ERROR)) {
      LOG.warn("Console request failed", failure);
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("error", refusal.getMessage());
    Response response = json(refusal.status(), body);
    if (refusal.status().equals(HttpResponseStatus.UNAUTHORIZED)) {
      response
          .headers()
          .put("WWW-Authenticate", "Basic realm=\"brook console\", charset=\"UTF-8\"");
    }
    return response;
  }

  /** Builds the console of a broker. */
  public static final class Builder {
    private ConsoleAccess access;
    private BasicAuthenticator authenticator;
    // Kafka's default, for a builder not told the broker's.
    private long transactionMaxTimeoutMs = 900_000;
    private ConsoleApi.Sources sources;
    private Executor worker;
    private Throughput throughput;
    private Forwarder forwarder;
    private Function<List<GroupPositions>, CompletableFuture<PartitionEnds>> leaderEnds;
    private final List<AutoCloseable> owned = new ArrayList<>();

    /**
     * @param adminHost the host {@code brook.admin.listener} binds
     * @param saslListeners whether a client listener authenticates with SASL
     * @param authenticator checks logins against the SASL users, or null when none is configured
     */
    public Builder access(
        String adminHost, boolean saslListeners, BasicAuthenticator authenticator) {
      this.access = ConsoleAccess.decide(adminHost, saslListeners, authenticator != null);
      this.authenticator = authenticator;
      return this;
    }

    @SuppressWarnings("TooManyParameters")
    public Builder sources(
        Supplier<MetadataImage> image,
        ReplicaManager replicas,
        GroupCoordinator groups,
        IntSupplier activeController,
        Supplier<Optional<QuorumState>> quorum,
        ApiRegistry registry,
        String clientListener,
        int nodeId,
        long retentionMs,
        String cleanupPolicy,
        int minInSyncReplicas,
        BrokerMetrics metrics,
        ScheduledExecutorService scheduler) {
      this.throughput = Throughput.start(metrics, scheduler);
      this.sources =
          new ConsoleApi.Sources(
              image,
              replicas,
              groups,
              activeController,
              quorum,
              new InProcessApis(registry, ConsoleApi.CLIENT_ID, clientListener),
              throughput,
              new ClusterView.Defaults(retentionMs, cleanupPolicy, minInSyncReplicas),
              nodeId,
              clientListener,
              null,
              null);
      return this;
    }

    /**
     * How the console reaches the other brokers, so its pages show the whole cluster: their
     * inter-broker listener, as this node, and the ends of the partitions they lead, for the lag.
     * Without it the console shows what this broker serves only.
     *
     * @param owned closed with the console (the connections)
     */
    public Builder cluster(
        Forwarder forwarder,
        Function<List<GroupPositions>, CompletableFuture<PartitionEnds>> leaderEnds,
        AutoCloseable... owned) {
      this.forwarder = forwarder;
      this.leaderEnds = leaderEnds;
      this.owned.addAll(List.of(owned));
      return this;
    }

    /** {@code transaction.max.timeout.ms}: the transactions page marks older ones as hung. */
    public Builder transactionMaxTimeoutMs(long timeoutMs) {
      this.transactionMaxTimeoutMs = timeoutMs;
      return this;
    }

    /** Where answers that may read the disk are built (the admin worker). */
    public Builder worker(Executor executor) {
      this.worker = executor;
      return this;
    }

    public ConsoleHttp build() {
      ConsoleApi.Sources all =
          sources == null
              ? null
              : new ConsoleApi.Sources(
                  sources.image(),
                  sources.replicas(),
                  sources.groups(),
                  sources.activeController(),
                  sources.quorum(),
                  sources.apis(),
                  sources.throughput(),
                  sources.defaults(),
                  sources.nodeId(),
                  sources.clientListener(),
                  forwarder,
                  leaderEnds);
      return new ConsoleHttp(
          access,
          authenticator,
          new ConsoleApi(all, worker, transactionMaxTimeoutMs),
          new ConsoleAssets(),
          throughput,
          owned);
    }
  }
}
