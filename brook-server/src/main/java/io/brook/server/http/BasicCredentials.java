package io.brook.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Function;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The one reading of an HTTP {@code Authorization: Basic} header (RFC 7617) for the listeners that
 * accept it (the HTTP API and the console): decodes the pair, checks it with a {@link
 * BasicAuthenticator} and clears the decoded password afterwards. Each listener words the refusal
 * its own way (its own exception and status body), so it passes how to build one.
 */
public final class BasicCredentials {
  private BasicCredentials() {}

  /**
   * The principal the header's user acts as.
   *
   * @param header the {@code Authorization} header's value, or null
   * @param missing the message when there is no Basic header
   * @param refused builds the exception thrown for a missing, malformed or wrong login
   */
  public static KafkaPrincipal authenticate(
      String header,
      BasicAuthenticator authenticator,
      String missing,
      Function<String, ? extends RuntimeException> refused) {
    if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
      throw refused.apply(missing);
    }
    char[] password = null;
    try {
      byte[] decoded = Base64.getDecoder().decode(header.substring(6).trim());
      String pair = new String(decoded, StandardCharsets.UTF_8);
      Arrays.fill(decoded, (byte) 0);
      int colon = pair.indexOf(':');
      if (colon < 0) {
        throw refused.apply("malformed Basic credentials");
      }
      password = pair.substring(colon + 1).toCharArray();
      KafkaPrincipal principal = authenticator.authenticate(pair.substring(0, colon), password);
      if (principal == null) {
        throw refused.apply("authentication failed: invalid user name or password");
      }
      return principal;
    } catch (IllegalArgumentException e) {
      throw refused.apply("malformed Basic credentials");
    } finally {
      if (password != null) {
        Arrays.fill(password, '\0');
      }
    }
  }
}
