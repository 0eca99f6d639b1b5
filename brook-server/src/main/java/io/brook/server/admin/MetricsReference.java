package io.brook.server.admin;

import io.brook.protocol.metrics.BrokerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.MetricName;

/**
 * The metrics reference of docs/operations.md, generated from a node's registry: one row per
 * Prometheus family that {@code /metrics} publishes, with its type, labels and the JMX object name
 * and attributes it comes from. The families registered per topic, partition, group or client come
 * from {@link PerInstanceMetrics} rather than the registry, which has them only while an instance
 * exists; so the reference is the same whenever it is generated. A test compares the page with it,
 * so the page cannot drift from the registry.
 */
public final class MetricsReference {
  /** The page's generated part lies between these lines. */
  public static final String START = "<!-- metrics-reference:start (generated; do not edit) -->";

  public static final String END = "<!-- metrics-reference:end -->";

  private MetricsReference() {}

  /** One family's row, merged over the metrics that feed it. */
  private static final class Row {
    String type;
    final TreeSet<String> labels = new TreeSet<>();

    /** JMX object names (tag values as {@code <tag>}) and their attributes feeding the family. */
    final Map<String, TreeSet<String>> jmx = new TreeMap<>();
  }

  /**
   * Every family of {@code metrics}, those registered per instance whether an instance exists now
   * or not, as markdown table rows under a header.
   */
  public static String markdown(BrokerMetrics metrics) {
    List<MetricName> names = new ArrayList<>();
    for (MetricName name : metrics.all().keySet()) {
      if (!PerInstanceMetrics.isPerInstance(name)) {
        names.add(name);
      }
    }
    names.addAll(PerInstanceMetrics.all());
    return markdown(names);
  }

  /**
   * How the reference lists {@code name}: its family, JMX object name (tag values as {@code <tag>})
   * and attribute; null if {@code /metrics} does not publish it (a meter's rate).
   */
  public static String entry(MetricName name) {
    String family = PrometheusBridge.familyName(name);
    return family == null ? null : family + " " + jmxName(name) + " " + name.name();
  }

  private static String markdown(List<MetricName> names) {
    Map<String, Row> rows = new TreeMap<>();
    for (MetricName name : names) {
      String family = PrometheusBridge.familyName(name);
      if (family == null) {
        continue;
      }
      boolean counter = PrometheusBridge.isCounter(name);
      Row row = rows.computeIfAbsent(counter ? family + "_total" : family, f -> new Row());
      row.type = counter ? "counter" : "gauge";
      for (String tag : name.tags().keySet()) {
        if (!tag.equals("name")) {
          row.labels.add(tag);
        }
      }
      if (BrokerMetrics.PERCENTILES.contains(name.name())) {
        row.labels.add("quantile");
      }
      row.jmx.computeIfAbsent(jmxName(name), n -> new TreeSet<>()).add("`" + name.name() + "`");
    }
    StringBuilder out = new StringBuilder();
    out.append("| Family | Type | Labels | JMX object name and attribute |\n");
    out.append("|---|---|---|---|\n");
    for (Map.Entry<String, Row> entry : rows.entrySet()) {
      Row row = entry.getValue();
      out.append("| `")
          .append(entry.getKey())
          .append("` | ")
          .append(row.type)
          .append(" | ")
          .append(String.join(", ", row.labels))
          .append(" | ")
          .append(jmxColumn(row))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String jmxColumn(Row row) {
    StringBuilder column = new StringBuilder();
    for (Map.Entry<String, TreeSet<String>> bean : row.jmx.entrySet()) {
      if (column.length() > 0) {
        column.append("<br>");
      }
      column.append(bean.getKey()).append(' ').append(String.join(", ", bean.getValue()));
    }
    return column.toString();
  }

  /** {@code page} with its generated part replaced by {@code reference}. */
  public static String replaceIn(String page, String reference) {
    int start = page.indexOf(START);
    int end = page.indexOf(END);
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("the page lacks the markers " + START + " and " + END);
    }
    return page.substring(0, start + START.length())
        + "\n\n"
        + reference
        + "\n"
        + page.substring(end);
  }

  /** {@code kafka.log:type=Log,name=Size,topic=<topic>,partition=<partition>}. */
  private static String jmxName(MetricName name) {
    String group = name.group();
    int dot = group.lastIndexOf('.');
    StringBuilder jmx = new StringBuilder("`");
    jmx.append(dot < 0 ? "kafka.server" : group.substring(0, dot))
        .append(":type=")
        .append(group.substring(dot + 1));
    for (Map.Entry<String, String> tag : name.tags().entrySet()) {
      jmx.append(',').append(tag.getKey()).append('=');
      jmx.append(tag.getKey().equals("name") ? tag.getValue() : "<" + tag.getKey() + ">");
    }
    return jmx.append('`').toString();
  }
}
