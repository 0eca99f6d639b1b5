package io.brook.protocol.codec;

/**
 * A request frame that cannot be understood: an unparsable header, an unknown API key, a body that
 * does not decode or does not fill its frame, or a version nobody can answer. Kafka closes the
 * connection for these; so does Brook.
 */
public final class MalformedRequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MalformedRequestException(String message) {
    super(message);
  }

  public MalformedRequestException(String message, Throwable cause) {
    super(message, cause);
  }
}
