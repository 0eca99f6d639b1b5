package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.record.ProducerIdsRecord;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ProducerIdsTest {

  @Test
  void blocksOfAThousandStrictlyIncreasing() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    long epoch1 = ctx.image.brokers().get(1).epoch();
    long epoch2 = ctx.image.brokers().get(2).epoch();

    // When
    ControllerResult<ProducerIdBlock> first = ctx.controller.allocateProducerIds(1, epoch1);
    ctx.replay(first);
    ProducerIdBlock second = ctx.replay(ctx.controller.allocateProducerIds(2, epoch2));
    ProducerIdBlock third = ctx.replay(ctx.controller.allocateProducerIds(1, epoch1));

    // Then
    assertThat(first.response()).isEqualTo(new ProducerIdBlock(0, 1000));
    assertThat(first.records()).containsExactly(new ProducerIdsRecord(1, epoch1, 1000));
    assertThat(second).isEqualTo(new ProducerIdBlock(1000, 1000));
    assertThat(third).isEqualTo(new ProducerIdBlock(2000, 1000));
    assertThat(ctx.image.nextProducerId()).isEqualTo(3000);
  }

  @Test
  void unknownBrokerAndStaleEpochAreRefused() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    long epoch = ctx.image.brokers().get(1).epoch();
    ctx.register(1, Optional.empty());

    // When / Then
    assertThatThrownBy(() -> ctx.controller.allocateProducerIds(7, 0))
        .isInstanceOfSatisfying(
            MetadataException.class,
            e -> assertThat(e.error().error()).isEqualTo(Errors.BROKER_ID_NOT_REGISTERED));
    assertThatThrownBy(() -> ctx.controller.allocateProducerIds(1, epoch))
        .isInstanceOfSatisfying(
            MetadataException.class,
            e -> assertThat(e.error().error()).isEqualTo(Errors.STALE_BROKER_EPOCH));
  }
}
