package io.brook.protocol.memory;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@link RequestMemoryPool}'s state under Kafka's JMX names, {@code
 * kafka.network:type=SocketServer,name=MemoryPoolAvailable} and {@code ...,name=MemoryPoolUsed}
 * (gauges, attribute {@code Value}, in bytes). When several brokers share a JVM the first keeps the
 * names.
 */
public final class MemoryPoolMBeans implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MemoryPoolMBeans.class);

  public static final String AVAILABLE = "kafka.network:type=SocketServer,name=MemoryPoolAvailable";
  public static final String USED = "kafka.network:type=SocketServer,name=MemoryPoolUsed";

  /** A gauge, as Yammer's JMX reporter (Kafka's) shows it. */
  public interface GaugeMBean {
    Object getValue();
  }

  private final MBeanServer server;
  private final List<ObjectName> registered = new ArrayList<>(2);

  private MemoryPoolMBeans(MBeanServer server) {
    this.server = server;
  }

  /** Registers the pool's gauges on the platform MBean server. */
  public static MemoryPoolMBeans register(RequestMemoryPool pool) {
    MemoryPoolMBeans beans = new MemoryPoolMBeans(ManagementFactory.getPlatformMBeanServer());
    beans.add(AVAILABLE, pool::available);
    beans.add(USED, pool::used);
    return beans;
  }

  private void add(String name, LongSupplier value) {
    GaugeMBean gauge = value::getAsLong;
    try {
      ObjectName objectName = new ObjectName(name);
      server.registerMBean(new StandardMBean(gauge, GaugeMBean.class, false), objectName);
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
}
