package io.brook.server.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The console's static files, read once from the classpath ({@code console/}) at start-up. Their
 * names are not versioned, so browsers must revalidate: every answer carries {@code Cache-Control:
 * no-cache} and a strong ETag (a digest of the content), and a request whose {@code If-None-Match}
 * names it gets a bodiless 304.
 */
final class ConsoleAssets {
  /** Every file the console serves; anything else is 404. */
  static final List<String> FILES =
      List.of(
          "index.html",
          "console.css",
          "app.js",
          "api.js",
          "chart.js",
          "format.js",
          "views.js",
          "favicon.svg");

  /** One file ready to serve. */
  @SuppressWarnings("ArrayRecordComponent") // read once, never changed
  record Asset(String contentType, byte[] body, String etag) {}

  private final Map<String, Asset> assets = new TreeMap<>();

  ConsoleAssets() {
    for (String file : FILES) {
      assets.put(file, load(file));
    }
  }

  /** The asset at {@code name} (relative to {@code /console/}), or null. */
  Asset get(String name) {
    return assets.get(name.isEmpty() ? "index.html" : name);
  }

  private static Asset load(String file) {
    try (InputStream in = ConsoleAssets.class.getResourceAsStream("/console/" + file)) {
      if (in == null) {
        throw new IllegalStateException("console asset missing from the jar: " + file);
      }
      byte[] body = in.readAllBytes();
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
      String etag = "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"";
      return new Asset(contentType(file), body, etag);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String contentType(String file) {
    String ext = file.substring(file.lastIndexOf('.') + 1);
    return switch (ext) {
      case "html" -> "text/html; charset=utf-8";
      case "css" -> "text/css; charset=utf-8";
      case "js" -> "text/javascript; charset=utf-8";
      case "svg" -> "image/svg+xml";
      case "png" -> "image/png";
      default -> "application/octet-stream";
    };
  }
}
