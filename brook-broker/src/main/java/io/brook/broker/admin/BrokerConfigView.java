package io.brook.broker.admin;

import java.util.List;
import java.util.Optional;

/** The broker's own (static) configuration, as DescribeConfigs shows it. */
public interface BrokerConfigView {
  /**
   * One broker setting.
   *
   * @param name Kafka's config name
   * @param value the effective value as a string (null for an unset optional value)
   * @param explicit set in the properties file, rather than defaulted
   * @param sensitive a secret, shown as null
   * @param type DescribeConfigs' config type code (1 boolean, 2 string, 3 int, 4 short, 5 long, 6
   *     double, 7 list, 8 class, 9 password)
   * @param documentation one line on what it does
   */
  record Entry(
      String name,
      String value,
      boolean explicit,
      boolean sensitive,
      byte type,
      String documentation) {}

  List<Entry> entries();

  Optional<Entry> entry(String name);
}
