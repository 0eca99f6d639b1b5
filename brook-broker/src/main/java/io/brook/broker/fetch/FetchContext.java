package io.brook.broker.fetch;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.delayed.StandingWatch;
import io.brook.broker.replica.Partition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.utils.Time;

/**
 * What one Fetch request reads and how its answer is shaped, by the kind of request (KIP-227):
 * sessionless, full (which may open a session), incremental (reads the session's partitions and
 * answers only those with news), or a session error (reads nothing).
 */
public sealed interface FetchContext {
  /**
   * A partition to read, with the request fields in force for it.
   *
   * @param session its entry in a follower's incremental session, null otherwise
   * @param mayBeQuiet the follower's request did not list it: its fetch state (offset, leader
   *     epoch, log start) is the one the session holds, so if nothing changed on this leader either
   *     since the last answer, reading it would only repeat that answer
   */
  record Requested(FetchKey key, FetchPartition request, Unlisted session, boolean mayBeQuiet) {}

  /**
   * A partition of a follower's incremental session as its last answer left it: the offsets that
   * answer reported and the partition it was read from. A follower at the log end of thousands of
   * idle partitions lists none of them in its incremental fetches; the leader compares these with
   * the partition's state instead of reading each one again (see FetchHandler).
   */
  interface Unlisted {
    /** The high watermark last reported to the follower, -1 before the first. */
    long reportedHighWatermark();

    /** The last stable offset last reported to the follower, -1 before the first. */
    long reportedLastStableOffset();

    /** The log start offset last reported to the follower, -1 before the first. */
    long reportedLogStartOffset();

    /** The partition this leader last read it from, null before the first read. */
    Partition leader();

    void rememberLeader(Partition partition);
  }

  /** A partition as read, before the context decides whether the response carries it. */
  record Answered(FetchKey key, PartitionData data) {}

  /** The partitions to read, in order. */
  List<Requested> partitions();

  /**
   * The response to send: for an incremental context only the partitions with news, remembering
   * what the session reported; for a full one, the id of the session it opened (if the cache
   * admitted it). Called once, when the answer is final.
   */
  FetchResponseData respond(List<Answered> answers);

  /**
   * Whether {@code answers} hold something the client has not been told yet other than by the bytes
   * it asked for: only an incremental session knows (for the others, everything is news).
   *
   * @param watermarks whether a new high watermark or last stable offset alone is news
   */
  default boolean hasNews(List<Answered> answers, boolean watermarks) {
    return false;
  }

  /**
   * The watch a fetch of this context parks through when it waits: its session's, which stays
   * registered under the session's partitions from one fetch to the next; null without a session.
   */
  default StandingWatch standingWatch(DelayedOperations delayed) {
    return null;
  }

  /** A request without a session (epoch -1, or before v7): every partition is answered. */
  record Sessionless(List<Requested> partitions) implements FetchContext {
    @Override
    public FetchResponseData respond(List<Answered> answers) {
      return response(FetchMetadata.INVALID_SESSION_ID, answers);
    }
  }

  /** A request that fails at the session level, reading nothing. */
  record SessionError(Errors error) implements FetchContext {
    @Override
    public List<Requested> partitions() {
      return List.of();
    }

    @Override
    public FetchResponseData respond(List<Answered> answers) {
      return new FetchResponseData()
          .setErrorCode(error.code())
          .setSessionId(FetchMetadata.INVALID_SESSION_ID);
    }
  }

  /** A full request (epoch 0): answers every partition and opens a session when the cache can. */
  final class Full implements FetchContext {
    private final FetchSessionCache cache;
    private final Time time;
    private final boolean privileged;
    private final boolean usesTopicIds;
    private final List<Requested> partitions;

    Full(
        FetchSessionCache cache,
        Time time,
        boolean privileged,
        boolean usesTopicIds,
        List<Requested> partitions) {
      this.cache = cache;
      this.time = time;
      this.privileged = privileged;
      this.usesTopicIds = usesTopicIds;
      this.partitions = partitions;
    }

    @Override
    public List<Requested> partitions() {
      return partitions;
    }

    @Override
    public FetchResponseData respond(List<Answered> answers) {
      if (answers.isEmpty()) {
        return response(FetchMetadata.INVALID_SESSION_ID, answers);
      }
      // Built before the cache's lock is taken: that lock is held for a few map operations only.
      LinkedHashMap<FetchKey, CachedPartition> cached = new LinkedHashMap<>();
      for (Requested requested : partitions) {
        cached.put(requested.key(), new CachedPartition(requested.key(), requested.request()));
      }
      for (Answered answered : answers) {
        CachedPartition partition = cached.get(answered.key());
        if (partition != null) {
          partition.mustRespond(answered.data(), true);
        }
      }
      int id = cache.maybeCreate(time.milliseconds(), privileged, usesTopicIds, cached);
      return response(id, answers);
    }
  }

  /** An incremental request (epoch > 0) of a session whose partitions it has already updated. */
  final class Incremental implements FetchContext {
    private final FetchSession session;
    private final int expectedEpoch;
    private final List<Requested> partitions;

    Incremental(FetchSession session, int expectedEpoch, List<Requested> partitions) {
      this.session = session;
      this.expectedEpoch = expectedEpoch;
      this.partitions = partitions;
    }

    @Override
    public List<Requested> partitions() {
      return partitions;
    }

    @Override
    public StandingWatch standingWatch(DelayedOperations delayed) {
      return session.watch(delayed);
    }

    @Override
    public boolean hasNews(List<Answered> answers, boolean watermarks) {
      synchronized (session) {
        for (Answered answered : answers) {
          CachedPartition cached = session.cached(answered.key());
          if (cached != null && cached.hasNews(answered.data(), watermarks)) {
            return true;
          }
        }
        return false;
      }
    }

    @Override
    public FetchResponseData respond(List<Answered> answers) {
      synchronized (session) {
        // A request with the same epoch (a client's retry) overtook this one: its answer is the
        // session's now, and this one cannot say what the client was told.
        if (session.epoch() != expectedEpoch) {
          return new FetchResponseData()
              .setErrorCode(Errors.INVALID_FETCH_SESSION_EPOCH.code())
              .setSessionId(session.id);
        }
        List<Answered> news = new ArrayList<>();
        for (Answered answered : answers) {
          CachedPartition cached = session.cached(answered.key());
          if (cached == null || !cached.mustRespond(answered.data(), true)) {
            continue;
          }
          news.add(answered);
          if (answered.data().records() != null && answered.data().records().sizeInBytes() > 0) {
            session.moveToEnd(cached);
          }
        }
        return response(session.id, news);
      }
    }
  }

  /** Answers grouped as Kafka groups them: consecutive partitions of a topic share an entry. */
  private static FetchResponseData response(int sessionId, List<Answered> answers) {
    FetchResponseData response = new FetchResponseData().setSessionId(sessionId);
    FetchableTopicResponse last = null;
    for (Answered answered : answers) {
      FetchKey key = answered.key();
      if (last == null
          || !last.topicId().equals(key.topicId())
          || !Objects.equals(last.topic(), key.topic())) {
        last = new FetchableTopicResponse().setTopic(key.topic()).setTopicId(key.topicId());
        response.responses().add(last);
      }
      last.partitions().add(answered.data());
    }
    return response;
  }
}
