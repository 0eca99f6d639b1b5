package io.brook.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** Real kafka-clients against a cluster, and the check that every broker agrees. */
public final class ClusterClients {
  private ClusterClients() {}

  static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    // A killed node is retried at most every 100 ms (default up to 1 s), so failover times
    // measure the cluster rather than the client's back-off.
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    return Admin.create(props);
  }

  static KafkaProducer<String, String> producer(String bootstrap) {
    return producer(bootstrap, Map.of());
  }

  /** An acks=all producer of strings with {@code overrides} on top of this class's settings. */
  static KafkaProducer<String, String> producer(String bootstrap, Map<String, Object> overrides) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    props.putAll(overrides);
    return new KafkaProducer<>(props);
  }

  /**
   * Waits until every listed broker serves the same metadata (raw Metadata request to each) and
   * that metadata meets {@code requirement}, then checks that a kafka-clients Admin bootstrapped on
   * each describes the same cluster and topics. The requirement is what makes this wait for a
   * change: brokers follow the metadata log a little behind the controller, so right after a change
   * they may still agree on the state before it.
   *
   * @return what they agree on
   */
  static ServedMetadata awaitSameEverywhere(
      Collection<String> brokers, Duration within, Consumer<ServedMetadata> requirement) {
    ServedMetadata agreed = awaitSameServed(brokers, within, requirement);
    // Admin describes through each broker agree too. ISRs change on their own now (followers
    // joining after a restart), so a round that straddles such a change is taken again.
    await("every broker describes the same topics")
        .atMost(within)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertSameDescribed(brokers, agreed));
    return agreed;
  }

  private static void assertSameDescribed(Collection<String> brokers, ServedMetadata agreed) {
    Map<String, TopicDescription> first = null;
    for (String broker : brokers) {
      try (Admin admin = admin(broker)) {
        Map<String, TopicDescription> seen =
            new TreeMap<>(admin.describeTopics(agreed.topics()).allTopicNames().get(30, SECONDS));
        assertThat(admin.describeCluster().clusterId().get(30, SECONDS))
            .isEqualTo(agreed.clusterId());
        if (first == null) {
          first = seen;
        }
        assertThat(seen).as("topics described through %s", broker).isEqualTo(first);
      } catch (AssertionError e) {
        throw e;
      } catch (Exception e) {
        throw new AssertionError("Admin through " + broker, e);
      }
    }
  }

  /**
   * The first half of {@link #awaitSameEverywhere}: raw Metadata requests to the listed brokers
   * only. For when a broker outside the list serves something else (an Admin may ask any broker).
   */
  public static ServedMetadata awaitSameServed(
      Collection<String> brokers, Duration within, Consumer<ServedMetadata> requirement) {
    ServedMetadata[] agreed = new ServedMetadata[1];
    await("every broker serves the same metadata")
        .atMost(within)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              ServedMetadata first = null;
              for (String broker : brokers) {
                ServedMetadata served = ServedMetadata.from(broker);
                if (first == null) {
                  first = served;
                }
                assertThat(served).as("metadata served by %s", broker).isEqualTo(first);
              }
              requirement.accept(first);
              agreed[0] = first;
            });
    return agreed[0];
  }

  private static final java.util.concurrent.TimeUnit SECONDS =
      java.util.concurrent.TimeUnit.SECONDS;
}
