package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a node's {@code /metrics} in the Prometheus text format, strictly. */
public final class PrometheusScrape {
  /** One sample line of the text format: name, optional labels, value. */
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)( \\S+)?");

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private PrometheusScrape() {}

  /** {@code GET path} on the admin listener at {@code port}. */
  static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Every sample of {@code /metrics}: every line must be a comment or a sample; keys are the name
   * with its labels as written (sorted by label name).
   */
  public static Map<String, Double> scrape(int port) throws Exception {
    HttpResponse<String> response = get(port, "/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("text/plain; version=0.0.4");
    Map<String, Double> samples = new HashMap<>();
    for (String line : response.body().split("\n")) {
      if (line.isEmpty() || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      assertThat(m.matches()).as("not a sample line: %s", line).isTrue();
      String key = m.group(1) + (m.group(2) == null ? "" : m.group(2));
      assertThat(samples.put(key, number(m.group(3)))).as("duplicate sample %s", key).isNull();
    }
    return samples;
  }

  private static double number(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }
}
