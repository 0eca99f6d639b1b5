package io.brook.broker.admin;

import org.apache.kafka.common.config.ConfigDef;

/** DescribeConfigs' config type codes (DescribeConfigsResponse.ConfigType). */
public final class ConfigTypes {
  private ConfigTypes() {}

  public static byte code(ConfigDef.Type type) {
    return switch (type) {
      case BOOLEAN -> 1;
      case STRING -> 2;
      case INT -> 3;
      case SHORT -> 4;
      case LONG -> 5;
      case DOUBLE -> 6;
      case LIST -> 7;
      case CLASS -> 8;
      case PASSWORD -> 9;
    };
  }
}
