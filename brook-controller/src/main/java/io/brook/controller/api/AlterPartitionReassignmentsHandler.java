package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.PartitionReassignment;
import io.brook.metadata.controller.ApiError;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterPartitionReassignments (KIP-455): starts moving each named partition to its target replicas,
 * or cancels its move (null replicas). Decided by the controller; each partition gets its own
 * error. A failure of the whole request (the controller unreachable) is the top-level error,
 * repeated on every partition as Kafka's error response does.
 *
 * <p>Version 1's {@code allowReplicationFactorChange=false} refuses targets that change a
 * partition's replica count; the response echoes the flag, as Kafka does.
 */
public final class AlterPartitionReassignmentsHandler extends KafkaApi {
  private final TopicAdmin admin;

  public AlterPartitionReassignmentsHandler(TopicAdmin admin) {
    super(ApiKeys.ALTER_PARTITION_REASSIGNMENTS);
    this.admin = admin;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    AlterPartitionReassignmentsRequestData request =
        (AlterPartitionReassignmentsRequestData) message;
    List<PartitionReassignment> wanted = new ArrayList<>();
    for (ReassignableTopic topic : request.topics()) {
      for (ReassignablePartition p : topic.partitions()) {
        wanted.add(
            new PartitionReassignment(
                topic.name(), p.partitionIndex(), Optional.ofNullable(p.replicas())));
      }
    }
    AlterPartitionReassignmentsResponseData response =
        new AlterPartitionReassignmentsResponseData()
            .setAllowReplicationFactorChange(request.allowReplicationFactorChange());
    List<ApiError> errors;
    try {
      errors = admin.alterPartitionReassignments(wanted, request.allowReplicationFactorChange());
    } catch (RuntimeException e) {
      ApiFailure failure = ApiFailure.of(e);
      ApiError error = new ApiError(failure.error(), failure.message());
      response.setErrorCode(failure.code()).setErrorMessage(failure.message());
      errors = Collections.nCopies(wanted.size(), error);
    }
    Iterator<ApiError> next = errors.iterator();
    for (ReassignableTopic topic : request.topics()) {
      ReassignableTopicResponse result = new ReassignableTopicResponse().setName(topic.name());
      for (ReassignablePartition p : topic.partitions()) {
        ApiError error = next.next();
        result
            .partitions()
            .add(
                new ReassignablePartitionResponse()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error.error().code())
                    .setErrorMessage(error.isSuccess() ? null : error.messageOrDefault()));
      }
      response.responses().add(result);
    }
    return CompletableFuture.completedFuture(response);
  }
}
