package io.brook.server.admin;

/**
 * One check of {@code /health} or {@code /ready}: its name, and why it fails (null when it passes).
 */
public record HealthCheck(String name, String failure) {
  public static HealthCheck pass(String name) {
    return new HealthCheck(name, null);
  }

  public static HealthCheck check(String name, boolean ok, String whyNot) {
    return new HealthCheck(name, ok ? null : whyNot);
  }

  public boolean ok() {
    return failure == null;
  }
}
