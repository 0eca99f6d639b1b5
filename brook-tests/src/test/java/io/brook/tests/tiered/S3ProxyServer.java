package io.brook.tests.tiered;

import java.net.URI;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

/**
 * A real S3 server for the tiered ITs and the fault campaign: s3proxy in this JVM, in memory, on a
 * loopback port (or every address), with one bucket, {@code brook}. It can be stopped and started
 * again on the same port with the same objects, to take the store away from a broker for a while.
 */
public final class S3ProxyServer implements AutoCloseable {
  static final String BUCKET = "brook";

  private final BlobStore blobs;
  private final String bindHost;
  private S3Proxy proxy;
  private int port;

  S3ProxyServer() throws Exception {
    this(UnaryOperator.identity());
  }

  /** With {@code wrap} around the in-memory store: a hook into what the server does. */
  S3ProxyServer(UnaryOperator<BlobStore> wrap) throws Exception {
    this(wrap, "127.0.0.1");
  }

  /**
   * Listening on every address, for nodes that reach this JVM over a bridge (network namespaces)
   * rather than on loopback.
   */
  public static S3ProxyServer onEveryAddress() throws Exception {
    return new S3ProxyServer(UnaryOperator.identity(), "0.0.0.0");
  }

  private S3ProxyServer(UnaryOperator<BlobStore> wrap, String bindHost) throws Exception {
    this.bindHost = bindHost;
    TransientNio2BlobStore memory = new TransientNio2BlobStore();
    memory.createContainer(BUCKET);
    blobs = wrap.apply(memory);
    start();
  }

  /** Starts serving (again), on the port of the first start. */
  synchronized void start() throws Exception {
    proxy =
        S3Proxy.builder()
            .blobStore(blobs)
            .endpoint(URI.create("http://" + bindHost + ":" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access", "secret")
            .build();
    proxy.start();
    while (!"STARTED".equals(proxy.getState())) {
      Thread.onSpinWait();
    }
    port = proxy.getPort();
  }

  /** Stops serving: connections are refused until {@link #start}. */
  synchronized void stop() throws Exception {
    proxy.stop();
  }

  /** The {@code rsm.config.} settings (prefix removed) of an S3 store on this server. */
  Map<String, String> settings(String keyPrefix) {
    return settings(keyPrefix, "127.0.0.1");
  }

  /** As {@link #settings(String)}, for clients that reach this server at {@code host}. */
  public Map<String, String> settings(String keyPrefix, String host) {
    return Map.of(
        "s3.bucket",
        BUCKET,
        "s3.endpoint.override",
        "http://" + host + ":" + port,
        "s3.path.style.access",
        "true",
        "s3.access.key.id",
        "access",
        "s3.secret.access.key",
        "secret",
        "s3.key.prefix",
        keyPrefix);
  }

  @Override
  public synchronized void close() throws Exception {
    proxy.stop();
  }
}
