package io.brook.protocol.metrics;

import java.util.ArrayList;
import java.util.List;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MBeans one component registered, so it can unregister exactly those. An object name is per
 * JVM: when several nodes run in one JVM (embedded test clusters) the first to register a name
 * keeps it and the others log that they did not.
 */
public final class MBeanRegistrations implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MBeanRegistrations.class);

  private final MBeanServer server;
  private final List<ObjectName> registered = new ArrayList<>();

  public MBeanRegistrations(MBeanServer server) {
    this.server = server;
  }

  /** Registers {@code bean} as {@code name}; a name taken already or a JMX failure is logged. */
  public void add(String name, Object bean) {
    try {
      ObjectName objectName = new ObjectName(name);
      server.registerMBean(bean, objectName);
      registered.add(objectName);
    } catch (InstanceAlreadyExistsException e) {
      LOG.info("MBean already registered by another node in this JVM, skipped name={}", name);
    } catch (JMException e) {
      LOG.warn("Registering an MBean failed name={} error={}", name, e.toString());
    }
  }

  /** Unregisters what {@link #add} registered. */
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
