package io.brook.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a command prints its result. Results are plain trees (maps in insertion order, lists,
 * strings, numbers, booleans, nulls), so one renderer serves every command: JSON and YAML for
 * scripts, aligned text for people.
 */
enum OutputFormat {
  TEXT,
  JSON,
  YAML;

  private static final ObjectMapper JSON_MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper JSON_LINE_MAPPER = new ObjectMapper();
  private static final ObjectMapper YAML_MAPPER =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  /** Parses {@code text}, {@code json} or {@code yaml}, in any case. */
  static OutputFormat parse(String value) {
    try {
      return valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("expected text, json or yaml, not '" + value + "'");
    }
  }

  /** Prints one whole result. */
  void print(PrintWriter out, Object result) {
    try {
      switch (this) {
        case JSON -> out.println(JSON_MAPPER.writeValueAsString(result));
        case YAML -> out.print(YAML_MAPPER.writeValueAsString(result));
        case TEXT -> Text.print(out, result);
      }
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    out.flush();
  }

  /**
   * Prints one element of a stream (a consumed record): a JSON object per line, a YAML document
   * each, or text.
   */
  void printElement(PrintWriter out, Object element) {
    try {
      switch (this) {
        case JSON -> out.println(JSON_LINE_MAPPER.writeValueAsString(element));
        case YAML -> out.print("---\n" + YAML_MAPPER.writeValueAsString(element));
        case TEXT -> Text.print(out, element);
      }
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The text rendering: "key: value" lines for maps, a table for a list of maps. */
  private static final class Text {
    private Text() {}

    static void print(PrintWriter out, Object value) {
      if (value instanceof Map<?, ?> map) {
        printMap(out, map, "");
      } else if (value instanceof Collection<?> list) {
        printList(out, list, "");
      } else {
        out.println(scalar(value));
      }
    }

    private static void printMap(PrintWriter out, Map<?, ?> map, String indent) {
      int width = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getValue() instanceof Map) && !(e.getValue() instanceof Collection)) {
          width = Math.max(width, e.getKey().toString().length());
        }
      }
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String key = e.getKey().toString();
        Object value = e.getValue();
        if (value instanceof Map<?, ?> nested) {
          out.println(indent + key + ":");
          printMap(out, nested, indent + "  ");
        } else if (value instanceof Collection<?> list) {
          out.println(indent + key + ":" + (list.isEmpty() ? " (none)" : ""));
          printList(out, list, indent + "  ");
        } else {
          out.println(indent + pad(key + ":", width + 1) + " " + scalar(value));
        }
      }
    }

    private static void printList(PrintWriter out, Collection<?> list, String indent) {
      boolean allMaps = !list.isEmpty() && list.stream().allMatch(Map.class::isInstance);
      if (!allMaps) {
        for (Object item : list) {
          out.println(indent + scalar(item));
        }
        return;
      }
      List<String> columns = new ArrayList<>();
      for (Object item : list) {
        for (Object key : ((Map<?, ?>) item).keySet()) {
          if (!columns.contains(key.toString())) {
            columns.add(key.toString());
          }
        }
      }
      int[] widths = new int[columns.size()];
      for (int i = 0; i < columns.size(); i++) {
        widths[i] = columns.get(i).length();
        for (Object item : list) {
          widths[i] = Math.max(widths[i], scalar(((Map<?, ?>) item).get(columns.get(i))).length());
        }
      }
      StringBuilder header = new StringBuilder(indent);
      for (int i = 0; i < columns.size(); i++) {
        header.append(pad(columns.get(i).toUpperCase(Locale.ROOT), widths[i] + 2));
      }
      out.println(header.toString().stripTrailing());
      for (Object item : list) {
        StringBuilder row = new StringBuilder(indent);
        for (int i = 0; i < columns.size(); i++) {
          row.append(pad(scalar(((Map<?, ?>) item).get(columns.get(i))), widths[i] + 2));
        }
        out.println(row.toString().stripTrailing());
      }
    }

    private static String scalar(Object value) {
      if (value == null) {
        return "-";
      }
      if (value instanceof Collection<?> list) {
        return String.join(",", list.stream().map(Text::scalar).toList());
      }
      if (value instanceof Map<?, ?> map) {
        List<String> parts = new ArrayList<>();
        map.forEach((k, v) -> parts.add(k + "=" + scalar(v)));
        return String.join(",", parts);
      }
      return value.toString();
    }

    private static String pad(String s, int width) {
      return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
  }
}
