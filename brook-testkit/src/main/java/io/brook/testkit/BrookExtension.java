package io.brook.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that starts one {@link EmbeddedBrook} before a test class and stops it after:
 *
 * <pre>{@code
 * @RegisterExtension static final BrookExtension BROOK = new BrookExtension();
 * ... props.put("bootstrap.servers", BROOK.bootstrapServers());
 * }</pre>
 */
public final class BrookExtension implements BeforeAllCallback, AfterAllCallback {
  private final EmbeddedBrook.Builder builder;
  private EmbeddedBrook brook;

  public BrookExtension() {
    this(EmbeddedBrook.builder());
  }

  /** With broker configs set on the builder first. */
  public BrookExtension(EmbeddedBrook.Builder builder) {
    this.builder = builder;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    brook = builder.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (brook != null) {
      brook.close();
    }
  }

  public String bootstrapServers() {
    return brook.bootstrapServers();
  }

  public EmbeddedBrook brook() {
    return brook;
  }
}
