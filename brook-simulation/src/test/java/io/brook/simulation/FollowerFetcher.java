package io.brook.simulation;

import io.brook.broker.replica.Followers;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.replica.fetcher.FollowerTruncation;
import io.brook.storage.log.ReplicaLog;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * The follower side of replication for one broker life, in place of the replica fetcher thread: one
 * Fetch at a time per followed partition, sent through the network to the leader's real Fetch
 * handler (which may hold it up to {@link #MAX_WAIT_MS}), the answer handled as the fetcher thread
 * does: append, or truncate on a diverging epoch ({@link FollowerTruncation}), or back off. A fetch
 * whose answer never comes is given up after {@link #FETCH_TIMEOUT_MS}.
 */
final class FollowerFetcher implements Followers {
  static final int MAX_WAIT_MS = 200;
  static final long BACKOFF_MS = 50;
  static final long FETCH_TIMEOUT_MS = 1_000;

  private final BrokerProcess broker;
  private final Map<TopicPartition, Fetching> followed = new LinkedHashMap<>();
  private long sequence;

  /** One follow() of a partition: replaced when the leader or its epoch changes. */
  private static final class Fetching {
    final Partition partition;
    final int leaderId;
    long inFlight = -1;

    Fetching(Partition partition, int leaderId) {
      this.partition = partition;
      this.leaderId = leaderId;
    }
  }

  FollowerFetcher(BrokerProcess broker) {
    this.broker = broker;
  }

  @Override
  public void follow(Partition partition) {
    Fetching current = followed.get(partition.topicPartition());
    int leaderId = partition.state().leader();
    if (current != null && current.partition == partition && current.leaderId == leaderId) {
      return; // an ISR change: the fetch in flight goes on
    }
    Fetching fetching = new Fetching(partition, leaderId);
    followed.put(partition.topicPartition(), fetching);
    broker.schedule("fetch " + partition.topicPartition(), () -> fetch(fetching), 0);
  }

  @Override
  public void unfollow(TopicPartition tp) {
    followed.remove(tp);
  }

  private boolean current(Fetching fetching) {
    return broker.alive() && followed.get(fetching.partition.topicPartition()) == fetching;
  }

  private void fetch(Fetching fetching) {
    if (!current(fetching) || fetching.inFlight >= 0) {
      return;
    }
    Partition partition = fetching.partition;
    PartitionState state = partition.state();
    ReplicaLog log = partition.log();
    long fetchOffset = log.logEndOffset();
    int lastFetchedEpoch = log.latestEpoch().orElse(-1);
    FetchRequestData request =
        new FetchRequestData().setMaxWaitMs(MAX_WAIT_MS).setMinBytes(1).setMaxBytes(1 << 20);
    request.replicaState().setReplicaId(broker.nodeId()).setReplicaEpoch(broker.brokerEpoch());
    FetchRequestData.FetchTopic topic =
        new FetchRequestData.FetchTopic()
            .setTopic(partition.topicPartition().topic())
            .setTopicId(partition.topicId());
    topic
        .partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(partition.topicPartition().partition())
                .setFetchOffset(fetchOffset)
                .setLogStartOffset(log.logStartOffset())
                .setCurrentLeaderEpoch(state.leaderEpoch())
                .setLastFetchedEpoch(lastFetchedEpoch)
                .setPartitionMaxBytes(1 << 20));
    request.topics().add(topic);
    long id = sequence++;
    fetching.inFlight = id;
    broker
        .simulation()
        .sendFetch(
            broker,
            fetching.leaderId,
            request,
            response -> onResponse(fetching, id, fetchOffset, response));
    broker.schedule(
        "fetch-timeout",
        () -> {
          if (fetching.inFlight == id) {
            fetching.inFlight = -1;
            fetch(fetching);
          }
        },
        FETCH_TIMEOUT_MS);
  }

  private void onResponse(Fetching fetching, long id, long fetchOffset, FetchResponseData answer) {
    if (!current(fetching) || fetching.inFlight != id) {
      return;
    }
    fetching.inFlight = -1;
    Partition partition = fetching.partition;
    long delay = 0;
    if (answer.errorCode() != Errors.NONE.code()) {
      delay = BACKOFF_MS;
    } else {
      FetchResponseData.PartitionData data = answer.responses().get(0).partitions().get(0);
      try {
        switch (Errors.forCode(data.errorCode())) {
          case NONE -> {
            if (FetchResponse.isDivergingEpoch(data)) {
              FollowerTruncation.onDivergingEpoch(partition, data.divergingEpoch());
            } else if (partition.log().logEndOffset() == fetchOffset) {
              partition.appendAsFollower(
                  (MemoryRecords) FetchResponse.recordsOrFail(data),
                  data.highWatermark(),
                  data.logStartOffset());
            }
          }
          case OFFSET_OUT_OF_RANGE ->
              FollowerTruncation.onOutOfRange(
                  partition, fetchOffset, data.logStartOffset(), data.highWatermark());
          default -> delay = BACKOFF_MS;
        }
      } catch (RuntimeException e) {
        broker.simulation().record("follower append failed " + e);
        delay = BACKOFF_MS;
      }
    }
    broker.schedule("fetch " + partition.topicPartition(), () -> fetch(fetching), delay);
  }
}
