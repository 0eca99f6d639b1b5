package io.brook.broker.api.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** What a producer is told when its partition could not be verified, per Produce version. */
class ProduceVerificationTest {
  private static Errors told(Errors coordinatorError, int produceVersion) {
    return ProduceVerification.of(Optional.empty(), "t", (short) produceVersion)
        .produceFailure(coordinatorError)
        .error();
  }

  @Test
  void retriableCoordinatorErrorsBecomeNotEnoughReplicas() {
    for (Errors error :
        new Errors[] {
          Errors.NETWORK_EXCEPTION,
          Errors.COORDINATOR_NOT_AVAILABLE,
          Errors.NOT_COORDINATOR,
          Errors.COORDINATOR_LOAD_IN_PROGRESS
        }) {
      assertThat(told(error, 9)).as(error.name()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
      assertThat(told(error, 12)).as(error.name()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
    }
  }

  @Test
  void concurrentTransactionsStaysForProducersThatAddPartitionsThemselvesNot() {
    assertThat(told(Errors.CONCURRENT_TRANSACTIONS, 11)).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
    assertThat(told(Errors.CONCURRENT_TRANSACTIONS, 12)).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
  }

  @Test
  void transactionAbortableIsInvalidTxnStateForClientsThatPredateIt() {
    assertThat(told(Errors.TRANSACTION_ABORTABLE, 10)).isEqualTo(Errors.INVALID_TXN_STATE);
    assertThat(told(Errors.TRANSACTION_ABORTABLE, 11)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
  }

  @Test
  void otherErrorsPassThrough() {
    assertThat(told(Errors.INVALID_PRODUCER_EPOCH, 11)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    assertThat(told(Errors.INVALID_TXN_STATE, 11)).isEqualTo(Errors.INVALID_TXN_STATE);
    assertThat(told(Errors.INVALID_PRODUCER_ID_MAPPING, 11))
        .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
  }
}
