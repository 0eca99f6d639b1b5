package io.brook.protocol.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key manager and a trust manager that follow the keystore and truststore files of an {@link
 * SslEngines}, for TLS stacks that take managers once and build their context from them at start-up
 * (the Raft quorum's gRPC, through Ratis' {@code GrpcTlsConfig}): every handshake asks the managers
 * for the identity to present and for the trust to apply, and these delegate to the managers of the
 * stores as last loaded. A handshake checks whether a file changed at most once per {@code
 * checkIntervalMs} (a file-time comparison; a changed store is read then, once per rotation), so a
 * rotated certificate is used by the next connection made or accepted, without a restart.
 * Connections already open keep the identity they were set up with.
 *
 * <p>Thread-safe: handshakes run on any of the TLS stack's threads.
 */
public final class ReloadingTlsManagers {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingTlsManagers.class);

  private final SslEngines engines;
  private final long checkIntervalNanos;

  /** Guarded by this. */
  private long nextCheckNanos;

  private volatile Managers current;

  private record Managers(X509ExtendedKeyManager key, X509ExtendedTrustManager trust) {}

  /**
   * @param engines the stores to follow (the managers read their current key and trust)
   * @param checkIntervalMs at most how often a handshake checks the files for changes
   */
  public ReloadingTlsManagers(SslEngines engines, long checkIntervalMs) {
    this.engines = engines;
    this.checkIntervalNanos = TimeUnit.MILLISECONDS.toNanos(checkIntervalMs);
    this.current = load(engines);
    this.nextCheckNanos = System.nanoTime() + checkIntervalNanos;
  }

  /** The key manager to hand to the TLS stack. */
  public KeyManager keyManager() {
    return new Key();
  }

  /** The trust manager to hand to the TLS stack. */
  public TrustManager trustManager() {
    return new Trust();
  }

  private Managers current() {
    long now = System.nanoTime();
    synchronized (this) {
      if (now - nextCheckNanos >= 0) {
        nextCheckNanos = now + checkIntervalNanos;
        try {
          if (engines.reloadIfChanged()) {
            current = load(engines);
          }
        } catch (RuntimeException e) {
          // The stores in use stay; the next check tries again.
          LOG.warn("Checking TLS stores for changes failed engines={}", engines, e);
        }
      }
    }
    return current;
  }

  private static Managers load(SslEngines engines) {
    if (!(engines.keyManager() instanceof X509ExtendedKeyManager key)
        || !(engines.trustManager() instanceof X509ExtendedTrustManager trust)) {
      throw new IllegalStateException(engines + " does not give X.509 managers");
    }
    return new Managers(key, trust);
  }

  /** Delegates each call to the current keystore's manager. */
  private final class Key extends X509ExtendedKeyManager {
    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return current().key().getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return current().key().chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return current().key().getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return current().key().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return current.key().getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return current.key().getPrivateKey(alias);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return current().key().chooseEngineClientAlias(keyType, issuers, engine);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return current().key().chooseEngineServerAlias(keyType, issuers, engine);
    }
  }

  /** Delegates each call to the current truststore's manager. */
  private final class Trust extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current().trust().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current().trust().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      current().trust().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      current().trust().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      current().trust().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      current().trust().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return current.trust().getAcceptedIssuers();
    }
  }
}
