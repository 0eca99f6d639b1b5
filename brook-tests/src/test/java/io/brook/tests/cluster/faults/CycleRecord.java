package io.brook.tests.cluster.faults;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One fault cycle as a line of JSON in {@code cycles.jsonl}: built up field by field in order,
 * values strings, numbers, booleans, lists and nested maps.
 */
final class CycleRecord {
  private final Map<String, Object> fields = new LinkedHashMap<>();

  CycleRecord put(String name, Object value) {
    fields.put(name, value);
    return this;
  }

  Object get(String name) {
    return fields.get(name);
  }

  String toJson() {
    return json(fields);
  }

  private static String json(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .map(e -> string(String.valueOf(e.getKey())) + ":" + json(e.getValue()))
          .collect(Collectors.joining(",", "{", "}"));
    }
    if (value instanceof Collection<?> list) {
      return list.stream().map(CycleRecord::json).collect(Collectors.joining(",", "[", "]"));
    }
    return string(value.toString());
  }

  private static String string(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
