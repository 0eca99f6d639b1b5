package io.brook.server;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * What {@code brook dev} and {@code brook server} tell the operator once the node serves: a block
 * of aligned lines on stdout, or, with JSON logs ({@code BROOK_LOG_FORMAT=json}), one log line with
 * the same items as fields, so that stdout holds JSON lines only.
 */
final class ReadyBlock {
  private static final int LABEL_WIDTH = 19;

  private final String title;
  private final Map<String, String> items = new LinkedHashMap<>();
  private String line;

  ReadyBlock(String title) {
    this.title = title;
  }

  ReadyBlock add(String label, String value) {
    items.put(label, value);
    return this;
  }

  /** Prints {@code text} as it is instead of the block (JSON logs still get the fields). */
  ReadyBlock asLine(String text) {
    this.line = text;
    return this;
  }

  void print(PrintStream out, Logger log) {
    if (jsonLogs()) {
      LoggingEventBuilder event = log.atInfo().setMessage(title);
      for (Map.Entry<String, String> item : items.entrySet()) {
        event = event.addKeyValue(item.getKey(), item.getValue());
      }
      event.log();
      return;
    }
    if (line != null) {
      out.println(line);
      out.flush();
      return;
    }
    StringBuilder text = new StringBuilder("\n").append(title).append('\n');
    items.forEach(
        (label, value) ->
            text.append("  ")
                .append(label)
                .append(" ".repeat(Math.max(1, LABEL_WIDTH - label.length())))
                .append(value)
                .append('\n'));
    out.println(text);
    out.flush();
  }

  /** The switch of the logging configuration (log4j2.xml): JSON lines on stdout. */
  static boolean jsonLogs() {
    return "json".equals(System.getenv("BROOK_LOG_FORMAT"));
  }
}
