package io.brook.storage.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The lines one class logs while a test runs, for tests of what an operator is told. Attaches an
 * appender to that class's logger (at INFO, whatever the test configuration says) and takes it off
 * on {@link #close}.
 */
public final class LogCapture implements AutoCloseable {
  /** One logged line: its level, its formatted message and the throwable logged with it. */
  public record Line(Level level, String message, Throwable thrown) {}

  private final String loggerName;
  private final LoggerContext context;
  private final boolean addedConfig;
  private final AbstractAppender appender;
  private final List<Line> lines = new CopyOnWriteArrayList<>();

  private LogCapture(Class<?> source) {
    this.loggerName = source.getName();
    this.context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    this.appender =
        new AbstractAppender("capture-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            lines.add(
                new Line(
                    event.getLevel(), event.getMessage().getFormattedMessage(), event.getThrown()));
          }
        };
    appender.start();
    LoggerConfig existing = config.getLoggerConfig(loggerName);
    this.addedConfig = !existing.getName().equals(loggerName);
    LoggerConfig own = existing;
    if (addedConfig) {
      // The class has no logger of its own in the configuration: it gets one for the test, not
      // additive, so the test's output is what it was.
      own = new LoggerConfig(loggerName, Level.INFO, false);
      config.addLogger(loggerName, own);
    }
    own.addAppender(appender, Level.INFO, null);
    context.updateLoggers();
  }

  /** Captures what {@code source}'s logger writes at INFO and above. */
  public static LogCapture of(Class<?> source) {
    return new LogCapture(source);
  }

  /** The lines captured so far, oldest first. */
  public List<Line> lines() {
    return List.copyOf(lines);
  }

  /** The captured lines at {@code level}. */
  public List<Line> at(Level level) {
    return lines.stream().filter(l -> l.level() == level).toList();
  }

  @Override
  public void close() {
    Configuration config = context.getConfiguration();
    if (addedConfig) {
      config.removeLogger(loggerName);
    } else {
      config.getLoggerConfig(loggerName).removeAppender(appender.getName());
    }
    context.updateLoggers();
    appender.stop();
  }
}
