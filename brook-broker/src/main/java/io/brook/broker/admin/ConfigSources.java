package io.brook.broker.admin;

/** DescribeConfigs' config source codes (DescribeConfigsResponse.ConfigSource). */
final class ConfigSources {
  static final byte DYNAMIC_TOPIC_CONFIG = 1;
  static final byte DYNAMIC_BROKER_CONFIG = 2;
  static final byte DYNAMIC_DEFAULT_BROKER_CONFIG = 3;
  static final byte STATIC_BROKER_CONFIG = 4;
  static final byte DEFAULT_CONFIG = 5;
  static final byte GROUP_CONFIG = 8;

  private ConfigSources() {}
}
