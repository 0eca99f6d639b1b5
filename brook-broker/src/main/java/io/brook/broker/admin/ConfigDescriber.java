package io.brook.broker.admin;

import io.brook.broker.share.ShareGroupConfig;
import io.brook.metadata.image.MetadataImage;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;

/**
 * Builds DescribeConfigs entries: for a topic every topic config with its effective value and where
 * it comes from (the topic's override, the broker's file, or Kafka's default), for a broker its
 * static settings, for a group its share group configs.
 */
public final class ConfigDescriber {
  private final LogConfig brokerLogDefaults;
  private final BrokerConfigView broker;

  public ConfigDescriber(LogConfig brokerLogDefaults, BrokerConfigView broker) {
    this.brokerLogDefaults = brokerLogDefaults;
    this.broker = broker;
  }

  /** The effective log config of a topic: broker defaults plus the topic's overrides. */
  public LogConfig effectiveTopicConfig(MetadataImage image, String topic) {
    return TopicConfigs.fromOverrides(
        image.configs(ConfigResource.Type.TOPIC, topic), brokerLogDefaults);
  }

  public List<DescribeConfigsResourceResult> describeTopic(
      MetadataImage image,
      String topic,
      Collection<String> keys,
      boolean includeSynonyms,
      boolean includeDocumentation) {
    Map<String, String> overrides = image.configs(ConfigResource.Type.TOPIC, topic);
    Map<String, String> values = TopicConfigs.toStrings(effectiveTopicConfig(image, topic));
    List<DescribeConfigsResourceResult> out = new ArrayList<>();
    for (String name : new TreeSet<>(TopicConfigs.names())) {
      if (keys != null && !keys.contains(name)) {
        continue;
      }
      List<BrokerConfigView.Entry> brokerSynonyms = brokerSynonyms(name);
      byte source =
          overrides.containsKey(name)
              ? ConfigSources.DYNAMIC_TOPIC_CONFIG
              : brokerSynonyms.stream().anyMatch(BrokerConfigView.Entry::explicit)
                  ? ConfigSources.STATIC_BROKER_CONFIG
                  : ConfigSources.DEFAULT_CONFIG;
      DescribeConfigsResourceResult entry =
          new DescribeConfigsResourceResult()
              .setName(name)
              .setValue(values.get(name))
              .setReadOnly(false)
              .setConfigSource(source)
              .setIsSensitive(false)
              .setConfigType(ConfigTypes.code(TopicConfigs.type(name)))
              .setDocumentation(includeDocumentation ? TopicConfigs.documentation(name) : null);
      if (includeSynonyms) {
        if (overrides.containsKey(name)) {
          entry
              .synonyms()
              .add(
                  new DescribeConfigsSynonym()
                      .setName(name)
                      .setValue(overrides.get(name))
                      .setSource(ConfigSources.DYNAMIC_TOPIC_CONFIG));
        }
        for (BrokerConfigView.Entry b : brokerSynonyms) {
          entry
              .synonyms()
              .add(
                  new DescribeConfigsSynonym()
                      .setName(b.name())
                      .setValue(b.value())
                      .setSource(
                          b.explicit()
                              ? ConfigSources.STATIC_BROKER_CONFIG
                              : ConfigSources.DEFAULT_CONFIG));
        }
      }
      out.add(entry);
    }
    return out;
  }

  /**
   * The broker settings that supply a topic config's default, most specific first (for example
   * {@code log.retention.ms}, {@code log.retention.minutes}, {@code log.retention.hours}), keeping
   * those that have a value, as Kafka lists them.
   */
  private List<BrokerConfigView.Entry> brokerSynonyms(String topicConfig) {
    List<BrokerConfigView.Entry> out = new ArrayList<>();
    for (String name : TopicConfigs.brokerSynonyms(topicConfig)) {
      broker.entry(name).filter(e -> e.value() != null).ifPresent(out::add);
    }
    return out;
  }

  /**
   * A broker's configs: its properties file and defaults, then the dynamic configs set for it or
   * for every broker in the metadata (the replication throttle rates), as Kafka lists them.
   */
  public List<DescribeConfigsResourceResult> describeBroker(
      MetadataImage image,
      int brokerId,
      Collection<String> keys,
      boolean includeSynonyms,
      boolean includeDocumentation) {
    List<DescribeConfigsResourceResult> out =
        describeBroker(keys, includeSynonyms, includeDocumentation);
    Map<String, String> own = image.configs(ConfigResource.Type.BROKER, Integer.toString(brokerId));
    Map<String, String> defaults = image.configs(ConfigResource.Type.BROKER, "");
    Set<String> names = new TreeSet<>(own.keySet());
    names.addAll(defaults.keySet());
    for (String name : names) {
      if (keys != null && !keys.contains(name)) {
        continue;
      }
      boolean perBroker = own.containsKey(name);
      String value = perBroker ? own.get(name) : defaults.get(name);
      byte source =
          perBroker
              ? ConfigSources.DYNAMIC_BROKER_CONFIG
              : ConfigSources.DYNAMIC_DEFAULT_BROKER_CONFIG;
      DescribeConfigsResourceResult entry =
          new DescribeConfigsResourceResult()
              .setName(name)
              .setValue(value)
              .setReadOnly(false)
              .setConfigSource(source)
              .setIsSensitive(false)
              .setConfigType(LONG_TYPE);
      if (includeSynonyms) {
        if (perBroker) {
          entry.synonyms().add(synonym(name, value, source));
        }
        if (defaults.containsKey(name)) {
          entry
              .synonyms()
              .add(synonym(name, defaults.get(name), ConfigSources.DYNAMIC_DEFAULT_BROKER_CONFIG));
        }
      }
      out.add(entry);
    }
    return out;
  }

  /**
   * A group's configs ({@link ShareGroupConfig}), as Kafka describes them: the group's own value
   * (source GROUP_CONFIG), else the broker setting it defaults to (STATIC_BROKER_CONFIG when the
   * broker's file sets it, DEFAULT_CONFIG otherwise), else the config's default.
   */
  public List<DescribeConfigsResourceResult> describeGroup(
      MetadataImage image,
      String group,
      Collection<String> keys,
      boolean includeSynonyms,
      boolean includeDocumentation) {
    Map<String, String> overrides = image.configs(ConfigResource.Type.GROUP, group);
    List<DescribeConfigsResourceResult> out = new ArrayList<>();
    for (String name : new TreeSet<>(ShareGroupConfig.DEF.names())) {
      if (keys != null && !keys.isEmpty() && !keys.contains(name)) {
        continue;
      }
      ConfigDef.ConfigKey key = ShareGroupConfig.DEF.configKeys().get(name);
      Optional<BrokerConfigView.Entry> brokerSynonym =
          Optional.ofNullable(ShareGroupConfig.BROKER_SYNONYMS.get(name))
              .flatMap(broker::entry)
              .filter(e -> e.value() != null);
      String own = overrides.get(name);
      String value =
          own != null
              ? own
              : brokerSynonym
                  .map(BrokerConfigView.Entry::value)
                  .orElse(ConfigDef.convertToString(key.defaultValue, key.type));
      byte source =
          own != null
              ? ConfigSources.GROUP_CONFIG
              : brokerSynonym.filter(BrokerConfigView.Entry::explicit).isPresent()
                  ? ConfigSources.STATIC_BROKER_CONFIG
                  : ConfigSources.DEFAULT_CONFIG;
      DescribeConfigsResourceResult entry =
          new DescribeConfigsResourceResult()
              .setName(name)
              .setValue(value)
              .setReadOnly(false)
              .setIsSensitive(false)
              .setConfigSource(source)
              .setConfigType(ConfigTypes.code(key.type))
              .setDocumentation(includeDocumentation ? key.documentation : null);
      if (includeSynonyms) {
        if (own != null) {
          entry.synonyms().add(synonym(name, own, ConfigSources.GROUP_CONFIG));
        }
        brokerSynonym.ifPresent(
            b ->
                entry
                    .synonyms()
                    .add(
                        synonym(
                            b.name(),
                            b.value(),
                            b.explicit()
                                ? ConfigSources.STATIC_BROKER_CONFIG
                                : ConfigSources.DEFAULT_CONFIG)));
      }
      out.add(entry);
    }
    return out;
  }

  private static DescribeConfigsSynonym synonym(String name, String value, byte source) {
    return new DescribeConfigsSynonym().setName(name).setValue(value).setSource(source);
  }

  /** DescribeConfigs' type code of the dynamic broker configs, all longs. */
  private static final byte LONG_TYPE = 5;

  public List<DescribeConfigsResourceResult> describeBroker(
      Collection<String> keys, boolean includeSynonyms, boolean includeDocumentation) {
    List<DescribeConfigsResourceResult> out = new ArrayList<>();
    for (BrokerConfigView.Entry e : broker.entries()) {
      if (keys != null && !keys.contains(e.name())) {
        continue;
      }
      byte source =
          e.explicit() ? ConfigSources.STATIC_BROKER_CONFIG : ConfigSources.DEFAULT_CONFIG;
      DescribeConfigsResourceResult entry =
          new DescribeConfigsResourceResult()
              .setName(e.name())
              .setValue(e.sensitive() ? null : e.value())
              .setReadOnly(true)
              .setConfigSource(source)
              .setIsSensitive(e.sensitive())
              .setConfigType(e.type())
              .setDocumentation(includeDocumentation ? e.documentation() : null);
      if (includeSynonyms) {
        entry
            .synonyms()
            .add(
                new DescribeConfigsSynonym()
                    .setName(e.name())
                    .setValue(e.sensitive() ? null : e.value())
                    .setSource(source));
      }
      out.add(entry);
    }
    return out;
  }
}
