package io.brook.coordinator.group.consumer;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.internals.Topic;

/**
 * Turns members' subscriptions (topic names and regexes) into the topics they consume, from the
 * metadata image.
 *
 * <p>Regexes: Kafka evaluates {@code SubscribedTopicRegex} with RE2J; Brook uses {@code
 * java.util.regex} with {@link java.util.regex.Matcher#matches()} (the whole name must match),
 * which accepts the same common syntax ({@code orders-.*}, {@code (a|b)-[0-9]+}). Internal topics
 * never match. To bound the cost of a hostile pattern on the shard thread, a regex is limited to
 * {@link #MAX_REGEX_LENGTH} characters and its compiled form is cached.
 */
final class SubscriptionResolver {
  /** Longer regexes are refused with INVALID_REGULAR_EXPRESSION. */
  static final int MAX_REGEX_LENGTH = 1024;

  /** Patterns kept compiled; a group rarely uses more than one or two. */
  private static final int CACHE_SIZE = 256;

  private final Map<String, Pattern> cache =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Pattern> eldest) {
          return size() > CACHE_SIZE;
        }
      };

  /**
   * @throws PatternSyntaxException if the regex does not compile
   * @throws IllegalArgumentException if it is too long
   */
  Pattern compile(String regex) {
    if (regex.length() > MAX_REGEX_LENGTH) {
      throw new IllegalArgumentException("regex longer than " + MAX_REGEX_LENGTH + " characters");
    }
    Pattern pattern = cache.get(regex);
    if (pattern == null) {
      pattern = Pattern.compile(regex);
      cache.put(regex, pattern);
    }
    return pattern;
  }

  /** Whether {@code topic} is one {@code subscription} consumes (by name or regex). */
  boolean subscribes(MemberSubscription subscription, String topic) {
    if (subscription.subscribedTopicNames().contains(topic)) {
      return true;
    }
    String regex = subscription.subscribedTopicRegex();
    return regex != null && !Topic.isInternal(topic) && matches(regex, topic);
  }

  private boolean matches(String regex, String topic) {
    try {
      return compile(regex).matcher(topic).matches();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The existing topics the members subscribe to, by name: the group's subscription metadata. */
  SortedMap<String, TopicMetadata> metadata(
      Collection<MemberSubscription> subscriptions, MetadataImage image) {
    Set<String> names = new HashSet<>();
    Set<String> regexes = new HashSet<>();
    for (MemberSubscription subscription : subscriptions) {
      names.addAll(subscription.subscribedTopicNames());
      if (subscription.subscribedTopicRegex() != null) {
        regexes.add(subscription.subscribedTopicRegex());
      }
    }
    if (!regexes.isEmpty()) {
      for (String topic : image.topicNames()) {
        if (!Topic.isInternal(topic) && regexes.stream().anyMatch(r -> matches(r, topic))) {
          names.add(topic);
        }
      }
    }
    SortedMap<String, TopicMetadata> metadata = new TreeMap<>();
    for (String name : names) {
      Optional<TopicImage> topic = image.topic(name);
      topic.ifPresent(t -> metadata.put(name, new TopicMetadata(t.id(), name, t.numPartitions())));
    }
    return metadata;
  }
}
