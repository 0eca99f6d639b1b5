package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.assignor.Assignors;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.errors.InvalidRegularExpression;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedAssignorException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;

/** Kafka's field checks of a ConsumerGroupHeartbeat, before anything is looked up. */
final class HeartbeatValidator {
  /** Version 1 (KIP-1082): the client generates its member id, so it is never empty. */
  private static final short CLIENT_MEMBER_ID_VERSION = 1;

  /**
   * Bound on what one member may make the coordinator store (ids, rack, topic names): far above any
   * real subscription (10,000 topic names of 100 bytes), far below a batch limit.
   */
  static final int MAX_MEMBER_METADATA_BYTES = 1024 * 1024;

  private final Assignors assignors;
  private final SubscriptionResolver resolver;

  HeartbeatValidator(Assignors assignors, SubscriptionResolver resolver) {
    this.assignors = assignors;
    this.resolver = resolver;
  }

  /**
   * @throws InvalidRequestException for a missing or malformed field
   * @throws UnsupportedAssignorException for an assignor this coordinator does not have
   * @throws InvalidRegularExpression for a regex that does not compile
   */
  void validate(ConsumerGroupHeartbeatRequestData request, short version) {
    requireNonEmpty(request.groupId(), "GroupId can't be empty.");
    requireNotEmptyIfSet(request.instanceId(), "InstanceId can't be empty.");
    requireNotEmptyIfSet(request.rackId(), "RackId can't be empty.");
    int epoch = request.memberEpoch();
    if (version >= CLIENT_MEMBER_ID_VERSION || epoch != 0) {
      requireNonEmpty(request.memberId(), "MemberId can't be empty.");
    }
    if (epoch == 0) {
      if (request.rebalanceTimeoutMs() == -1) {
        throw new InvalidRequestException("RebalanceTimeoutMs must be provided in first request.");
      }
      if (request.topicPartitions() == null || !request.topicPartitions().isEmpty()) {
        throw new InvalidRequestException("TopicPartitions must be empty when (re-)joining.");
      }
      if (request.subscribedTopicNames() == null && request.subscribedTopicRegex() == null) {
        throw new InvalidRequestException(
            "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
      }
    } else if (epoch == ConsumerGroupHeartbeat.STATIC_LEAVE_EPOCH) {
      if (request.instanceId() == null) {
        throw new InvalidRequestException("InstanceId can't be null.");
      }
    } else if (epoch < ConsumerGroupHeartbeat.STATIC_LEAVE_EPOCH) {
      throw new InvalidRequestException("MemberEpoch is invalid.");
    }
    if (request.rebalanceTimeoutMs() < -1) {
      throw new InvalidRequestException("RebalanceTimeoutMs is invalid.");
    }
    if (request.subscribedTopicRegex() != null && !request.subscribedTopicRegex().isEmpty()) {
      try {
        resolver.compile(request.subscribedTopicRegex());
      } catch (IllegalArgumentException e) {
        throw new InvalidRegularExpression(
            "SubscribedTopicRegex "
                + request.subscribedTopicRegex()
                + " is not valid: "
                + e.getMessage());
      }
    }
    if (request.serverAssignor() != null && assignors.get(request.serverAssignor()).isEmpty()) {
      throw new UnsupportedAssignorException(
          "ServerAssignor " + request.serverAssignor() + " is not supported.");
    }
    if (metadataBytes(request) > MAX_MEMBER_METADATA_BYTES) {
      throw new InvalidRequestException(
          "member metadata larger than " + MAX_MEMBER_METADATA_BYTES + " bytes");
    }
  }

  private static long metadataBytes(ConsumerGroupHeartbeatRequestData request) {
    long bytes =
        (long) utf8(request.memberId()) + utf8(request.instanceId()) + utf8(request.rackId());
    bytes += utf8(request.subscribedTopicRegex()) + utf8(request.serverAssignor());
    if (request.subscribedTopicNames() != null) {
      for (String name : request.subscribedTopicNames()) {
        bytes += utf8(name) + 2L;
      }
    }
    return bytes;
  }

  private static int utf8(String s) {
    return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
  }

  private static void requireNonEmpty(String value, String message) {
    if (value == null || value.isEmpty()) {
      throw new InvalidRequestException(message);
    }
  }

  private static void requireNotEmptyIfSet(String value, String message) {
    if (value != null && value.isEmpty()) {
      throw new InvalidRequestException(message);
    }
  }
}
