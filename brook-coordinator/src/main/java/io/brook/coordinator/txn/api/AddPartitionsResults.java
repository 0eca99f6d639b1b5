package io.brook.coordinator.txn.api;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.protocol.Errors;

/** Builds AddPartitionsToTxn results, grouped by topic as the response wants them. */
final class AddPartitionsResults {
  private AddPartitionsResults() {}

  static AddPartitionsToTxnResult byTopic(Map<TopicPartition, Errors> errors) {
    AddPartitionsToTxnResult result = new AddPartitionsToTxnResult();
    errors.forEach(
        (tp, error) -> {
          AddPartitionsToTxnTopicResult topic = result.topicResults().find(tp.topic());
          if (topic == null) {
            topic = new AddPartitionsToTxnTopicResult().setName(tp.topic());
            result.topicResults().add(topic);
          }
          topic
              .resultsByPartition()
              .add(
                  new AddPartitionsToTxnPartitionResult()
                      .setPartitionIndex(tp.partition())
                      .setPartitionErrorCode(error.code()));
        });
    return result;
  }
}
