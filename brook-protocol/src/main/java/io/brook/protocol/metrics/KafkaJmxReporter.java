package io.brook.protocol.metrics;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@link BrokerMetrics} registry on the platform MBean server under Kafka's object
 * names: one MBean per group and tag set ({@code <domain>:type=<type>,<tag>=<value>...}), each
 * metric of it an attribute. Unlike kafka-clients' {@code JmxReporter} the domain comes from the
 * metric's group (Kafka's broker metrics span {@code kafka.server}, {@code kafka.network} and
 * {@code kafka.log}), and a name another node of the same JVM registered first (embedded test
 * clusters) is skipped with a log line instead of failing the registration.
 */
final class KafkaJmxReporter implements MetricsReporter {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaJmxReporter.class);
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._-]*");

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final Map<ObjectName, Bean> beans = new HashMap<>();

  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public synchronized void init(List<KafkaMetric> metrics) {
    metrics.forEach(this::metricChange);
  }

  @Override
  public synchronized void metricChange(KafkaMetric metric) {
    ObjectName name = objectName(metric.metricName());
    Bean bean = beans.get(name);
    if (bean == null) {
      bean = new Bean();
      try {
        server.registerMBean(bean, name);
      } catch (InstanceAlreadyExistsException e) {
        LOG.info("MBean already registered by another node in this JVM, skipped name={}", name);
        bean.registered = false;
      } catch (JMException e) {
        LOG.warn("Registering an MBean failed name={} error={}", name, e.toString());
        bean.registered = false;
      }
      beans.put(name, bean);
    }
    bean.attributes.put(metric.metricName().name(), metric);
  }

  @Override
  public synchronized void metricRemoval(KafkaMetric metric) {
    ObjectName name = objectName(metric.metricName());
    Bean bean = beans.get(name);
    if (bean == null) {
      return;
    }
    bean.attributes.remove(metric.metricName().name());
    if (bean.attributes.isEmpty()) {
      beans.remove(name);
      unregister(name, bean);
    }
  }

  @Override
  public synchronized void close() {
    beans.forEach(this::unregister);
    beans.clear();
  }

  private void unregister(ObjectName name, Bean bean) {
    if (!bean.registered) {
      return;
    }
    try {
      server.unregisterMBean(name);
    } catch (JMException e) {
      LOG.debug("Unregistering an MBean failed name={}", name, e);
    }
  }

  /** {@code kafka.server.ReplicaManager} + tags to {@code kafka.server:type=ReplicaManager,...}. */
  static ObjectName objectName(MetricName metric) {
    String group = metric.group();
    int dot = group.lastIndexOf('.');
    StringBuilder name = new StringBuilder();
    // A group without a domain (kafka-clients' own "kafka-metrics-count") goes under kafka.server,
    // where Kafka's broker publishes it.
    name.append(dot < 0 ? "kafka.server" : group.substring(0, dot))
        .append(":type=")
        .append(group.substring(dot + 1));
    for (Map.Entry<String, String> tag : metric.tags().entrySet()) {
      String value = tag.getValue();
      name.append(',')
          .append(tag.getKey())
          .append('=')
          .append(PLAIN.matcher(value).matches() ? value : ObjectName.quote(value));
    }
    try {
      return new ObjectName(name.toString());
    } catch (JMException e) {
      throw new IllegalArgumentException("not a JMX name: " + name, e);
    }
  }

  /** One object name's metrics, read when JMX asks. */
  private static final class Bean implements DynamicMBean {
    final Map<String, KafkaMetric> attributes = new ConcurrentHashMap<>();
    boolean registered = true;

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
      KafkaMetric metric = attributes.get(attribute);
      if (metric == null) {
        throw new AttributeNotFoundException(attribute);
      }
      return value(attribute, metric);
    }

    /** Yammer's {@code Count} is a long; kafka-clients counts in doubles. */
    private static Object value(String attribute, KafkaMetric metric) {
      Object value = metric.metricValue();
      if (attribute.equals(BrokerMetrics.COUNT) && value instanceof Double count) {
        return Math.round(count);
      }
      return value;
    }

    @Override
    public AttributeList getAttributes(String[] names) {
      AttributeList list = new AttributeList();
      for (String name : names) {
        KafkaMetric metric = attributes.get(name);
        if (metric != null) {
          list.add(new Attribute(name, value(name, metric)));
        }
      }
      return list;
    }

    @Override
    public MBeanInfo getMBeanInfo() {
      MBeanAttributeInfo[] infos =
          attributes.entrySet().stream()
              .map(
                  e ->
                      new MBeanAttributeInfo(
                          e.getKey(),
                          "java.lang.Object",
                          e.getValue().metricName().description(),
                          true,
                          false,
                          false))
              .toArray(MBeanAttributeInfo[]::new);
      return new MBeanInfo(KafkaMetric.class.getName(), "", infos, null, null, null);
    }

    @Override
    public void setAttribute(Attribute attribute) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public Object invoke(String action, Object[] params, String[] signature) {
      throw new UnsupportedOperationException(action);
    }
  }
}
