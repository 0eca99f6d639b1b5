package io.brook.broker.cluster;

import io.brook.broker.replica.IsrChangeSender;
import io.brook.broker.replica.PartitionState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.OperationNotAttemptedException;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Sends leaders' ISR changes to the active controller as AlterPartition requests, like Kafka's
 * AlterPartitionManager: one request in flight per broker, carrying every change queued while the
 * previous one was out, so a burst of ISR changes (a follower dying under 10,000 partitions) costs
 * a few requests, not one each. A newer change for a partition replaces a queued one, so the queue
 * holds at most one entry per partition this broker leads.
 */
public final class AlterPartitionManager implements IsrChangeSender {
  private final int brokerId;
  private final LongSupplier brokerEpoch;
  private final ControllerClient controller;
  private final Map<TopicIdPartition, Item> queued = new LinkedHashMap<>();
  private boolean inFlight;

  private record Item(
      TopicIdPartition partition,
      int leaderEpoch,
      int partitionEpoch,
      List<Member> newIsr,
      CompletableFuture<PartitionState> result) {}

  public AlterPartitionManager(
      int brokerId, LongSupplier brokerEpoch, ControllerClient controller) {
    this.brokerId = brokerId;
    this.brokerEpoch = brokerEpoch;
    this.controller = controller;
  }

  @Override
  public CompletableFuture<PartitionState> alterIsr(
      Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Member> newIsr) {
    CompletableFuture<PartitionState> result = new CompletableFuture<>();
    TopicIdPartition key = new TopicIdPartition(topicId, partition, null);
    Item replaced;
    synchronized (this) {
      replaced =
          queued.put(key, new Item(key, leaderEpoch, partitionEpoch, List.copyOf(newIsr), result));
    }
    if (replaced != null) {
      replaced
          .result()
          .completeExceptionally(
              new OperationNotAttemptedException("replaced by a newer ISR change"));
    }
    maybeSend();
    return result;
  }

  private void maybeSend() {
    List<Item> batch;
    synchronized (this) {
      if (inFlight || queued.isEmpty()) {
        return;
      }
      inFlight = true;
      batch = new ArrayList<>(queued.values());
      queued.clear();
    }
    controller
        .send(ApiKeys.ALTER_PARTITION, request(batch))
        .whenComplete(
            (response, failure) -> {
              try {
                complete(batch, (AlterPartitionResponseData) response, failure);
              } finally {
                synchronized (this) {
                  inFlight = false;
                }
                maybeSend();
              }
            });
  }

  private AlterPartitionRequestData request(List<Item> batch) {
    AlterPartitionRequestData request =
        new AlterPartitionRequestData()
            .setBrokerId(brokerId)
            .setBrokerEpoch(brokerEpoch.getAsLong());
    Map<Uuid, AlterPartitionRequestData.TopicData> topics = new LinkedHashMap<>();
    for (Item item : batch) {
      AlterPartitionRequestData.TopicData topic =
          topics.computeIfAbsent(
              item.partition().topicId(),
              id -> new AlterPartitionRequestData.TopicData().setTopicId(id));
      List<AlterPartitionRequestData.BrokerState> members = new ArrayList<>();
      for (Member member : item.newIsr()) {
        members.add(
            new AlterPartitionRequestData.BrokerState()
                .setBrokerId(member.brokerId())
                .setBrokerEpoch(member.brokerEpoch()));
      }
      topic
          .partitions()
          .add(
              new AlterPartitionRequestData.PartitionData()
                  .setPartitionIndex(item.partition().partition())
                  .setLeaderEpoch(item.leaderEpoch())
                  .setPartitionEpoch(item.partitionEpoch())
                  .setNewIsrWithEpochs(members));
    }
    request.topics().addAll(topics.values());
    return request;
  }

  private static void complete(
      List<Item> batch, AlterPartitionResponseData response, Throwable failure) {
    if (failure != null) {
      batch.forEach(item -> item.result().completeExceptionally(failure));
      return;
    }
    Errors topLevel = Errors.forCode(response.errorCode());
    if (topLevel != Errors.NONE) {
      batch.forEach(item -> item.result().completeExceptionally(topLevel.exception()));
      return;
    }
    Map<TopicIdPartition, AlterPartitionResponseData.PartitionData> answers = new LinkedHashMap<>();
    for (AlterPartitionResponseData.TopicData topic : response.topics()) {
      for (AlterPartitionResponseData.PartitionData p : topic.partitions()) {
        answers.put(new TopicIdPartition(topic.topicId(), p.partitionIndex(), null), p);
      }
    }
    for (Item item : batch) {
      AlterPartitionResponseData.PartitionData answer = answers.get(item.partition());
      if (answer == null) {
        item.result()
            .completeExceptionally(
                Errors.UNKNOWN_SERVER_ERROR.exception("no answer for " + item.partition()));
        continue;
      }
      Errors error = Errors.forCode(answer.errorCode());
      if (error != Errors.NONE) {
        item.result().completeExceptionally(error.exception());
        continue;
      }
      item.result()
          .complete(
              new PartitionState(
                  answer.leaderId(),
                  answer.leaderEpoch(),
                  answer.partitionEpoch(),
                  List.of(),
                  answer.isr()));
    }
  }
}
