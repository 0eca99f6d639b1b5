package io.brook.broker.metrics;

import java.util.ArrayList;
import java.util.List;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MBeans one component registered, to unregister them together. An object name is per JVM: when
 * several nodes run in one JVM (embedded test clusters), the first to register a name keeps it and
 * the others log that they did not.
 */
public final class MBeanRegistrations implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MBeanRegistrations.class);

  private final MBeanServer server;
  private final List<ObjectName> registered = new ArrayList<>();

  public MBeanRegistrations(MBeanServer server) {
    this.server = server;
  }

  /** Registers {@code bean} under {@code name}; a failure is logged, never thrown. */
  public void add(String name, Object bean) {
    try {
      ObjectName objectName = new ObjectName(name);
      server.registerMBean(bean, objectName);
      registered.add(objectName);
    } catch (InstanceAlreadyExistsException e) {
      log.info("MBean already registered by another node in this JVM, skipped name={}", name);
    } catch (JMException e) {
      log.warn("Registering an MBean failed name={} error={}", name, e.toString());
    }
  }

  /** Unregisters what {@link #add} registered. */
  @Override
  public void close() {
    for (ObjectName name : registered) {
      try {
        server.unregisterMBean(name);
      } catch (JMException e) {
        log.debug("Unregistering an MBean failed name={}", name, e);
      }
    }
    registered.clear();
  }
}
