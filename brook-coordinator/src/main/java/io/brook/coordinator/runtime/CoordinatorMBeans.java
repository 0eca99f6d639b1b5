package io.brook.coordinator.runtime;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a coordinator runtime's health as JMX MBeans in Kafka's style for its coordinator
 * metrics (docs/metrics.md lists them): {@code
 * kafka.server:type=<group>,state=loading|active|failed} with attribute {@code num-partitions}, and
 * {@code kafka.server:type=<group>} with Kafka's {@code event-queue-size} and Brook's cumulative
 * {@code load-skipped-records-total}, {@code load-failures-total} and {@code
 * rejected-requests-total}. Values are read when asked.
 *
 * <p>As with the replication MBeans, an object name is per JVM: when several nodes run in one JVM
 * the first to register a name keeps it and the others log that they did not.
 */
public final class CoordinatorMBeans implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorMBeans.class);

  private final MBeanServer server;

  /** The names this instance registered, and so unregisters. */
  private final List<ObjectName> registered = new ArrayList<>();

  private CoordinatorMBeans(MBeanServer server) {
    this.server = server;
  }

  /**
   * @param group Kafka's metrics group, {@code group-coordinator-metrics} or {@code
   *     transaction-coordinator-metrics}
   */
  public static CoordinatorMBeans register(String group, CoordinatorRuntime<?> runtime) {
    return register(ManagementFactory.getPlatformMBeanServer(), group, runtime);
  }

  static CoordinatorMBeans register(
      MBeanServer server, String group, CoordinatorRuntime<?> runtime) {
    CoordinatorMBeans beans = new CoordinatorMBeans(server);
    for (String state : List.of("loading", "active", "failed")) {
      beans.add(
          "kafka.server:type=" + group + ",state=" + state,
          Map.of("num-partitions", () -> (long) runtime.partitionCount(state)));
    }
    CoordinatorRuntimeMetrics metrics = runtime.metrics();
    Map<String, Supplier<Long>> attributes = new LinkedHashMap<>();
    attributes.put("event-queue-size", () -> (long) runtime.eventQueueSize());
    attributes.put("load-skipped-records-total", metrics::loadSkippedRecords);
    attributes.put("load-failures-total", metrics::loadFailures);
    attributes.put("rejected-requests-total", metrics::rejectedRequests);
    beans.add("kafka.server:type=" + group, attributes);
    return beans;
  }

  private void add(String name, Map<String, Supplier<Long>> attributes) {
    try {
      ObjectName objectName = new ObjectName(name);
      server.registerMBean(new Attributes(attributes), objectName);
      registered.add(objectName);
    } catch (InstanceAlreadyExistsException e) {
      LOG.info("MBean already registered by another node in this JVM, skipped name={}", name);
    } catch (JMException e) {
      LOG.warn("Registering an MBean failed name={} error={}", name, e.toString());
    }
  }

  @Override
  public void close() {
    for (ObjectName name : registered) {
      try {
        server.unregisterMBean(name);
      } catch (JMException e) {
        LOG.debug("Unregistering an MBean failed name={}", name, e);
      }
    }
    registered.clear();
  }

  /** Read-only numeric attributes computed when read. */
  private static final class Attributes implements DynamicMBean {
    private final Map<String, Supplier<Long>> attributes;

    Attributes(Map<String, Supplier<Long>> attributes) {
      this.attributes = attributes;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
      Supplier<Long> value = attributes.get(attribute);
      if (value == null) {
        throw new AttributeNotFoundException(attribute);
      }
      return value.get();
    }

    @Override
    public void setAttribute(Attribute attribute) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public AttributeList getAttributes(String[] names) {
      AttributeList list = new AttributeList();
      for (String name : names) {
        Supplier<Long> value = attributes.get(name);
        if (value != null) {
          list.add(new Attribute(name, value.get()));
        }
      }
      return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList list) {
      return new AttributeList();
    }

    @Override
    public Object invoke(String action, Object[] params, String[] signature) {
      throw new UnsupportedOperationException(action);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
      List<MBeanAttributeInfo> infos = new ArrayList<>();
      for (String name : attributes.keySet()) {
        infos.add(new MBeanAttributeInfo(name, "java.lang.Long", name, true, false, false));
      }
      return new MBeanInfo(
          Attributes.class.getName(),
          "Coordinator metrics",
          infos.toArray(new MBeanAttributeInfo[0]),
          null,
          null,
          null);
    }
  }
}
