package io.brook.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The classic group reads consumer subscriptions with the generated message class; it reads what
 * the consumer's own serializer writes, in every version, as the consumer's parser does.
 */
class ConsumerSubscriptionParsingTest {
  private static final Subscription SUBSCRIPTION =
      new Subscription(
          List.of("orders", "payments"),
          ByteBuffer.wrap(new byte[] {1, 2}),
          List.of(new TopicPartition("orders", 0)),
          3,
          Optional.of("rack-a"));

  @ParameterizedTest
  @ValueSource(shorts = {0, 1, 2, 3})
  void readsWhatTheConsumerWritesInEachVersion(short version) {
    ByteBuffer bytes = ConsumerProtocol.serializeSubscription(SUBSCRIPTION, version);

    ConsumerProtocolSubscription read = ClassicGroup.subscription(bytes.duplicate());

    assertThat(read.topics())
        .isEqualTo(ConsumerProtocol.deserializeSubscription(bytes.duplicate()).topics())
        .containsExactly("orders", "payments");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 100})
  void aNewerVersionIsReadAsTheNewestKnown(int ahead) {
    ByteBuffer newest =
        ConsumerProtocol.serializeSubscription(
            SUBSCRIPTION, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
    // A later version: the same fields and one more at the end.
    ByteBuffer later = ByteBuffer.allocate(newest.remaining() + 4);
    later.put(newest.duplicate()).putInt(7).flip();
    later.putShort(0, (short) (ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION + ahead));

    assertThat(ClassicGroup.subscription(later).topics()).containsExactly("orders", "payments");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "00", "ffff0000", "0000ffffffff", "000000010005"})
  void bytesThatAreNoSubscriptionDoNotParse(String hex) {
    ByteBuffer bytes = ByteBuffer.wrap(java.util.HexFormat.of().parseHex(hex));

    assertThatThrownBy(() -> ClassicGroup.subscription(bytes)).isInstanceOf(RuntimeException.class);
  }
}
