package io.brook.broker.share;

import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareAcknowledge (KIP-932): a member's acknowledgements without a fetch, within its share session
 * (a next epoch continues it, -1 closes it after the acknowledgements and releases what the member
 * still holds; a session cannot be opened here). Each batch is ACCEPT, RELEASE, REJECT, a GAP, or
 * (version 2) RENEW, which starts the acquisition lock again.
 */
public final class ShareAcknowledgeHandler extends KafkaApi {
  private final ShareDelivery delivery;

  public ShareAcknowledgeHandler(SharePartitionManager manager, RequestAuthorizer authorizer) {
    super(ApiKeys.SHARE_ACKNOWLEDGE);
    this.delivery = new ShareDelivery(manager, authorizer);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    ShareAcknowledgeRequestData request = (ShareAcknowledgeRequestData) message;
    SharePartitionManager manager = delivery.manager();
    int lockMs = manager.recordLockDurationMs(request.groupId());
    if (request.groupId() == null
        || request.groupId().isEmpty()
        || request.memberId() == null
        || request.memberId().isEmpty()) {
      return done(error(Errors.INVALID_REQUEST, "GroupId and MemberId must be set.", lockMs));
    }
    int epoch = request.shareSessionEpoch();
    ShareSessions.Key key = new ShareSessions.Key(request.groupId(), request.memberId());
    ShareSessions sessions = manager.sessions();
    try {
      if (epoch == ShareSessions.INITIAL_EPOCH) {
        return done(
            error(
                Errors.INVALID_SHARE_SESSION_EPOCH,
                "ShareAcknowledge cannot open a share session.",
                lockMs));
      } else if (epoch == ShareSessions.FINAL_EPOCH) {
        if (!sessions.contains(key)) {
          return done(error(Errors.SHARE_SESSION_NOT_FOUND, null, lockMs));
        }
      } else {
        sessions.next(key, epoch, List.of(), List.of(), context.connectionId(), manager.nowMs());
      }
    } catch (ApiException e) {
      return done(error(Errors.forException(e), e.getMessage(), lockMs));
    }
    ShareDelivery.Resolver resolver = delivery.new Resolver(context);
    ShareAcknowledgeResponseData response =
        new ShareAcknowledgeResponseData().setAcquisitionLockTimeoutMs(lockMs);
    // Answered once every acknowledgement is durable.
    List<CompletableFuture<Void>> durable = new ArrayList<>();
    for (ShareAcknowledgeRequestData.AcknowledgeTopic topic : request.topics()) {
      ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse out =
          new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse()
              .setTopicId(topic.topicId());
      for (ShareAcknowledgeRequestData.AcknowledgePartition p : topic.partitions()) {
        List<ShareDelivery.Ack> acks = new ArrayList<>();
        for (ShareAcknowledgeRequestData.AcknowledgementBatch b : p.acknowledgementBatches()) {
          acks.add(new ShareDelivery.Ack(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()));
        }
        ShareDelivery.Resolved resolved = resolver.resolve(topic.topicId(), p.partitionIndex());
        ShareAcknowledgeResponseData.PartitionData data =
            new ShareAcknowledgeResponseData.PartitionData().setPartitionIndex(p.partitionIndex());
        out.partitions().add(data);
        durable.add(
            delivery
                .acknowledge(key.groupId(), key.memberId(), resolved, acks)
                .thenAccept(error -> data.setErrorCode(error.code())));
      }
      response.responses().add(out);
    }
    if (epoch == ShareSessions.FINAL_EPOCH) {
      try {
        List<ShareSessions.SessionPartition> partitions = sessions.close(key);
        manager.release(
            key.groupId(),
            key.memberId(),
            SharePartitionManager.topicPartitions(manager.replicaManager(), partitions));
      } catch (ApiException e) {
        // Closed meanwhile by its connection or the idle sweep, which released the records.
      }
    }
    return CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new))
        .thenApply(v -> response);
  }

  private static ShareAcknowledgeResponseData error(Errors error, String message, int lockMs) {
    return new ShareAcknowledgeResponseData()
        .setErrorCode(error.code())
        .setErrorMessage(message == null ? error.message() : message)
        .setAcquisitionLockTimeoutMs(lockMs);
  }

  private static CompletionStage<ApiMessage> done(ApiMessage response) {
    return CompletableFuture.completedFuture(response);
  }
}
