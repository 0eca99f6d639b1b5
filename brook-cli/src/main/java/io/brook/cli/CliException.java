package io.brook.cli;

/** A failure whose message is already what the operator should read (exit status 1). */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }
}
