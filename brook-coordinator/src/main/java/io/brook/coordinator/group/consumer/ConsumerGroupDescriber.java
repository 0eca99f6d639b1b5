package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.Errors;

/** ConsumerGroupDescribe for one group, as Kafka answers it. */
final class ConsumerGroupDescriber {
  /** ConsumerGroupDescribe v1's MemberType of a member using the consumer protocol. */
  private static final byte CONSUMER_MEMBER = 1;

  private ConsumerGroupDescriber() {}

  static DescribedGroup describe(ConsumerGroupManager manager, String groupId) {
    DescribedGroup described = new DescribedGroup().setGroupId(groupId);
    Optional<Group> any = manager.anyGroup(groupId);
    if (any.isEmpty()) {
      return described
          .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
          .setErrorMessage("Group " + groupId + " not found.");
    }
    if (!(any.get() instanceof ConsumerGroup group)) {
      return described
          .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
          .setErrorMessage("Group " + groupId + " is not a consumer group.");
    }
    MetadataImage image = manager.context().image();
    described
        .setGroupState(group.stateName())
        .setGroupEpoch(group.groupEpoch())
        .setAssignmentEpoch(group.assignmentEpoch())
        .setAssignorName(manager.assignorOf(group).name());
    for (ConsumerGroupMember member : group.members().values()) {
      MemberSubscription sub = member.subscription();
      described
          .members()
          .add(
              new ConsumerGroupDescribeResponseData.Member()
                  .setMemberId(member.memberId())
                  .setInstanceId(sub.instanceId())
                  .setRackId(sub.rackId())
                  .setMemberEpoch(member.memberEpoch())
                  .setClientId(sub.clientId())
                  .setClientHost(sub.clientHost())
                  .setSubscribedTopicNames(List.copyOf(sub.subscribedTopicNames()))
                  .setSubscribedTopicRegex(sub.subscribedTopicRegex())
                  .setAssignment(assignment(member.assignment().assigned(), image))
                  .setTargetAssignment(assignment(group.targetAssignment(member.memberId()), image))
                  .setMemberType(CONSUMER_MEMBER));
    }
    return described;
  }

  private static ConsumerGroupDescribeResponseData.Assignment assignment(
      SortedSet<TopicIdPartition> partitions, MetadataImage image) {
    ConsumerGroupDescribeResponseData.Assignment out =
        new ConsumerGroupDescribeResponseData.Assignment();
    Map<Uuid, List<Integer>> byTopic = ConsumerGroupRecords.byTopic(partitions);
    byTopic.forEach(
        (topicId, ids) -> {
          Optional<TopicImage> topic = image.topic(topicId);
          if (topic.isPresent()) {
            out.topicPartitions()
                .add(
                    new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(topicId)
                        .setTopicName(topic.get().name())
                        .setPartitions(ids));
          }
        });
    return out;
  }
}
