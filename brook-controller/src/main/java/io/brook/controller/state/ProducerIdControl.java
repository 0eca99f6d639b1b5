package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ProducerIdsRecord;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/** Hands out blocks of producer ids; the counter lives in the image and only grows. */
final class ProducerIdControl {
  private ProducerIdControl() {}

  static ControllerResult<ProducerIdBlock> allocate(
      MetadataImage image, int brokerId, long brokerEpoch, int blockSize) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null) {
      throw new MetadataException(
          new ApiError(
              Errors.BROKER_ID_NOT_REGISTERED, "Broker " + brokerId + " is not registered."));
    }
    if (broker.epoch() != brokerEpoch) {
      throw new MetadataException(
          new ApiError(
              Errors.STALE_BROKER_EPOCH,
              "Broker "
                  + brokerId
                  + " has epoch "
                  + broker.epoch()
                  + ", not "
                  + brokerEpoch
                  + "."));
    }
    long first = image.nextProducerId();
    if (first > Long.MAX_VALUE - blockSize) {
      throw new MetadataException(
          new ApiError(Errors.UNKNOWN_SERVER_ERROR, "Producer ids are exhausted."));
    }
    return ControllerResult.of(
        List.of(new ProducerIdsRecord(brokerId, brokerEpoch, first + blockSize)),
        new ProducerIdBlock(first, blockSize));
  }
}
