package io.brook.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for TLS tests, made when the test runs (never checked in) with the JDK's {@code
 * keytool}, run as a process: a test certificate authority, and identities (a key pair and a
 * certificate the authority signed, with subject alternative names) in JKS, PKCS12 or PEM files,
 * plus truststores holding the authority.
 *
 * <pre>{@code
 * TestCertificates certs = TestCertificates.create(tempDir);
 * TestCertificates.Identity broker = certs.issue("broker", StoreType.PKCS12);
 * Map<String, String> brokerTls = broker.keystoreConfig();    // ssl.keystore.*
 * brokerTls.putAll(certs.truststoreConfig(StoreType.JKS));      // ssl.truststore.*
 * }</pre>
 */
public final class TestCertificates {
  /** Every store and key here uses this password (PEM keys are not encrypted). */
  public static final String PASSWORD = "brook-test-secret";

  /** Store formats Kafka's {@code ssl.keystore.type} / {@code ssl.truststore.type} take. */
  public enum StoreType {
    JKS,
    PKCS12,
    PEM
  }

  private final Path dir;
  private final Path caStore;
  private final Path caPem;

  private TestCertificates(Path dir, Path caStore, Path caPem) {
    this.dir = dir;
    this.caStore = caStore;
    this.caPem = caPem;
  }

  /** Creates a certificate authority ({@code CN=Brook Test CA}) under {@code dir}. */
  public static TestCertificates create(Path dir) {
    try {
      Files.createDirectories(dir);
      Path caStore = dir.resolve("ca.p12");
      Path caPem = dir.resolve("ca.pem");
      keytool(
          "-genkeypair",
          "-alias",
          "ca",
          "-dname",
          "CN=Brook Test CA",
          "-ext",
          "bc:c",
          "-keystore",
          caStore.toString(),
          "-storetype",
          "PKCS12");
      keytool(
          "-exportcert",
          "-rfc",
          "-alias",
          "ca",
          "-keystore",
          caStore.toString(),
          "-storetype",
          "PKCS12",
          "-file",
          caPem.toString());
      return new TestCertificates(dir, caStore, caPem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The authority's certificate, PEM. */
  public Path caPem() {
    return caPem;
  }

  /**
   * A new identity {@code CN=<name>,O=Brook} signed by the authority, valid for {@code localhost}
   * and {@code 127.0.0.1}, its store in {@code type}'s format.
   */
  public Identity issue(String name, StoreType type) {
    return issue(name, type, "CN=" + name + ",O=Brook");
  }

  /** As {@link #issue(String, StoreType)} with the distinguished name {@code dname}. */
  public Identity issue(String name, StoreType type, String dname) {
    try {
      Path work = Files.createTempDirectory(dir, name + "-");
      Path p12 = work.resolve(name + ".p12");
      String store = p12.toString();
      keytool(
          "-genkeypair",
          "-alias",
          name,
          "-dname",
          dname,
          "-keystore",
          store,
          "-storetype",
          "PKCS12");
      Path csr = work.resolve(name + ".csr");
      keytool(
          "-certreq",
          "-alias",
          name,
          "-keystore",
          store,
          "-storetype",
          "PKCS12",
          "-file",
          csr.toString());
      Path cert = work.resolve(name + ".crt");
      keytool(
          "-gencert",
          "-alias",
          "ca",
          "-keystore",
          caStore.toString(),
          "-storetype",
          "PKCS12",
          "-infile",
          csr.toString(),
          "-outfile",
          cert.toString(),
          "-rfc",
          "-ext",
          "SAN=dns:localhost,ip:127.0.0.1",
          "-ext",
          "EKU=serverAuth,clientAuth");
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          "ca",
          "-keystore",
          store,
          "-storetype",
          "PKCS12",
          "-file",
          caPem.toString());
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          name,
          "-keystore",
          store,
          "-storetype",
          "PKCS12",
          "-file",
          cert.toString());
      Path chainPem = work.resolve(name + "-chain.pem");
      Files.writeString(
          chainPem, Files.readString(cert) + Files.readString(caPem), StandardCharsets.US_ASCII);
      Path keyPem = work.resolve(name + "-key.pem");
      Files.writeString(keyPem, privateKeyPem(p12, name), StandardCharsets.US_ASCII);
      Path keystore =
          switch (type) {
            case PKCS12 -> p12;
            case PEM -> {
              Path pem = work.resolve(name + "-keystore.pem");
              Files.writeString(
                  pem,
                  Files.readString(keyPem) + Files.readString(chainPem),
                  StandardCharsets.US_ASCII);
              yield pem;
            }
            case JKS -> {
              Path jks = work.resolve(name + ".jks");
              keytool(
                  "-importkeystore",
                  "-srckeystore",
                  store,
                  "-srcstoretype",
                  "PKCS12",
                  "-srcstorepass",
                  PASSWORD,
                  "-destkeystore",
                  jks.toString(),
                  "-deststoretype",
                  "JKS",
                  "-deststorepass",
                  PASSWORD,
                  "-destkeypass",
                  PASSWORD);
              yield jks;
            }
          };
      return new Identity(name, type, keystore, chainPem, keyPem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A truststore holding the authority, in {@code type}'s format. */
  public Path truststore(StoreType type) {
    try {
      return switch (type) {
        case PEM -> caPem;
        case JKS, PKCS12 -> {
          Path store = dir.resolve("truststore." + type.name().toLowerCase(Locale.ROOT));
          if (!Files.exists(store)) {
            keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-keystore",
                store.toString(),
                "-storetype",
                type.name(),
                "-file",
                caPem.toString());
          }
          yield store;
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code ssl.truststore.*} for a truststore of {@code type}, by Kafka's names. */
  public Map<String, String> truststoreConfig(StoreType type) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("ssl.truststore.type", type.name());
    config.put("ssl.truststore.location", truststore(type).toString());
    if (type != StoreType.PEM) {
      config.put("ssl.truststore.password", PASSWORD);
    }
    return config;
  }

  /**
   * One identity's files.
   *
   * @param keystore the key and its chain in {@code type}'s format (PEM: key then chain)
   * @param chainPem the certificate and the authority's, PEM
   * @param keyPem the private key, unencrypted PKCS#8 PEM
   */
  public record Identity(String name, StoreType type, Path keystore, Path chainPem, Path keyPem) {

    /** {@code ssl.keystore.*} (and {@code ssl.key.password}) by Kafka's names. */
    public Map<String, String> keystoreConfig() {
      Map<String, String> config = new LinkedHashMap<>();
      config.put("ssl.keystore.type", type.name());
      config.put("ssl.keystore.location", keystore.toString());
      if (type != StoreType.PEM) {
        config.put("ssl.keystore.password", PASSWORD);
        config.put("ssl.key.password", PASSWORD);
      }
      return config;
    }

    /**
     * The same key and chain inline, as {@code ssl.keystore.key} and {@code .certificate.chain}.
     */
    public Map<String, String> inlinePemConfig() {
      try {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("ssl.keystore.type", "PEM");
        config.put("ssl.keystore.key", Files.readString(keyPem));
        config.put("ssl.keystore.certificate.chain", Files.readString(chainPem));
        return config;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static String privateKeyPem(Path p12, String alias) throws IOException {
    try (InputStream in = Files.newInputStream(p12)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, PASSWORD.toCharArray());
      PrivateKey key = (PrivateKey) store.getKey(alias, PASSWORD.toCharArray());
      return "-----BEGIN PRIVATE KEY-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
              .encodeToString(key.getEncoded())
          + "\n-----END PRIVATE KEY-----\n";
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the private key of " + p12, e);
    }
  }

  /** Runs the JDK's keytool with EC keys, a year's validity and {@link #PASSWORD}. */
  private static void keytool(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    if (List.of(args).contains("-genkeypair")) {
      command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "365"));
    }
    if (!List.of(args).contains("-importkeystore")) {
      command.addAll(List.of("-storepass", PASSWORD));
    }
    if (List.of(args).contains("-genkeypair")) {
      command.addAll(List.of("-keypass", PASSWORD));
    }
    // No stdin: a keytool that would prompt fails at once instead of waiting forever.
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    String output;
    try (InputStream out = process.getInputStream()) {
      output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
    }
    try {
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IOException("keytool did not finish: " + command);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted running keytool", e);
    }
    if (process.exitValue() != 0) {
      throw new IOException(
          "keytool failed (" + process.exitValue() + "): " + command + "\n" + output);
    }
  }
}
