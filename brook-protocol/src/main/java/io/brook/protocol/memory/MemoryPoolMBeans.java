package io.brook.protocol.memory;

import io.brook.protocol.metrics.MBeanRegistrations;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;
import javax.management.StandardMBean;

/**
 * Publishes a {@link RequestMemoryPool}'s state under Kafka's JMX names, {@code
 * kafka.network:type=SocketServer,name=MemoryPoolAvailable} and {@code ...,name=MemoryPoolUsed}
 * (gauges, attribute {@code Value}, in bytes).
 */
public final class MemoryPoolMBeans implements AutoCloseable {
  public static final String AVAILABLE = "kafka.network:type=SocketServer,name=MemoryPoolAvailable";
  public static final String USED = "kafka.network:type=SocketServer,name=MemoryPoolUsed";

  /** A gauge, as Yammer's JMX reporter (Kafka's) shows it. */
  public interface GaugeMBean {
    Object getValue();
  }

  private final MBeanRegistrations registrations =
      new MBeanRegistrations(ManagementFactory.getPlatformMBeanServer());

  private MemoryPoolMBeans() {}

  /** Registers the pool's gauges on the platform MBean server. */
  public static MemoryPoolMBeans register(RequestMemoryPool pool) {
    MemoryPoolMBeans beans = new MemoryPoolMBeans();
    beans.add(AVAILABLE, pool::available);
    beans.add(USED, pool::used);
    return beans;
  }

  private void add(String name, LongSupplier value) {
    GaugeMBean gauge = value::getAsLong;
    registrations.add(name, new StandardMBean(gauge, GaugeMBean.class, false));
  }

  @Override
  public void close() {
    registrations.close();
  }
}
