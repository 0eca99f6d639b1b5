package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The console's checks before any route runs: refused outright when it would need a login it cannot
 * check, the Host check on loopback, and the header every change must carry. None of these requests
 * reaches the broker (the console is built without one).
 */
class ConsoleHttpTest {
  private static ConsoleHttp.Response send(
      ConsoleHttp console, HttpMethod method, String uri, String host, boolean csrfHeader)
      throws Exception {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("Host", host);
    if (csrfHeader) {
      headers.set("X-Brook-Console", "1");
    }
    return console
        .handle(
            new ConsoleHttp.Request(
                method, uri, headers, new byte[0], InetAddress.getLoopbackAddress(), "t"))
        .get();
  }

  private static String body(ConsoleHttp.Response response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Test
  void aConsoleThatWouldNeedAnUncheckableLoginRefusesEverything() throws Exception {
    ConsoleHttp console = new ConsoleHttp.Builder().access("0.0.0.0", true, null).build();
    assertThat(console.serving()).isFalse();
    ConsoleHttp.Response page = send(console, HttpMethod.GET, "/console/", "example:9644", false);
    assertThat(page.status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    assertThat(body(page)).contains("brook.http.authentication.listener");
    assertThat(send(console, HttpMethod.GET, "/console/api/overview", "example", false).status())
        .isEqualTo(HttpResponseStatus.FORBIDDEN);
  }

  @Test
  void onLoopbackOnlyLoopbackHostNamesAreServed() throws Exception {
    ConsoleHttp console = new ConsoleHttp.Builder().access("127.0.0.1", true, null).build();
    assertThat(send(console, HttpMethod.GET, "/console/", "localhost:9644", false).status())
        .isEqualTo(HttpResponseStatus.OK);
    ConsoleHttp.Response rebound =
        send(console, HttpMethod.GET, "/console/", "rebound.example:9644", false);
    assertThat(rebound.status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
  }

  @Test
  void changesWithoutTheConsoleHeaderAreRefusedBeforeRouting() throws Exception {
    ConsoleHttp console = new ConsoleHttp.Builder().access("127.0.0.1", false, null).build();
    ConsoleHttp.Response forged =
        send(console, HttpMethod.DELETE, "/console/api/topics/orders", "127.0.0.1:9644", false);
    assertThat(forged.status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    assertThat(body(forged)).contains("X-Brook-Console");
  }

  @Test
  void thePageAsksForEveryScriptModuleAtOnce() throws Exception {
    ConsoleHttp console = new ConsoleHttp.Builder().access("127.0.0.1", false, null).build();
    String index = body(send(console, HttpMethod.GET, "/console/", "localhost", false));
    for (String file : ConsoleAssets.FILES) {
      if (file.endsWith(".js")) {
        assertThat(index).contains("<link rel=\"modulepreload\" href=\"" + file + "\">");
      }
    }
  }

  @Test
  void filesHaveTheirTypeAndAreRevalidated() throws Exception {
    ConsoleHttp console = new ConsoleHttp.Builder().access("127.0.0.1", false, null).build();
    ConsoleHttp.Response css =
        send(console, HttpMethod.GET, "/console/console.css", "[::1]", false);
    assertThat(css.status()).isEqualTo(HttpResponseStatus.OK);
    assertThat(css.contentType()).isEqualTo("text/css; charset=utf-8");
    assertThat(css.headers()).containsEntry("Cache-Control", "no-cache").containsKey("ETag");
    assertThat(css.headers().get("Content-Security-Policy")).contains("script-src 'self'");
    ConsoleHttp.Response index = send(console, HttpMethod.GET, "/console/", "localhost", false);
    assertThat(index.contentType()).startsWith("text/html");
    assertThat(send(console, HttpMethod.GET, "/console/nope.js", "localhost", false).status())
        .isEqualTo(HttpResponseStatus.NOT_FOUND);
  }
}
