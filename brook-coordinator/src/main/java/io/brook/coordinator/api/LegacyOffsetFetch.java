package io.brook.coordinator.api;

import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;

/** The single-group OffsetFetch answer of versions 0 to 7. */
final class LegacyOffsetFetch {
  /** The top-level error code exists from version 2; before it, partitions carry it. */
  private static final short TOP_LEVEL_ERROR_VERSION = 2;

  private LegacyOffsetFetch() {}

  static OffsetFetchResponseData toLegacy(OffsetFetchResponseGroup group, short version) {
    OffsetFetchResponseData response = new OffsetFetchResponseData();
    if (version >= TOP_LEVEL_ERROR_VERSION) {
      response.setErrorCode(group.errorCode());
    }
    for (OffsetFetchResponseTopics topic : group.topics()) {
      OffsetFetchResponseTopic out = new OffsetFetchResponseTopic().setName(topic.name());
      response.topics().add(out);
      for (OffsetFetchResponsePartitions p : topic.partitions()) {
        short error = version < TOP_LEVEL_ERROR_VERSION ? group.errorCode() : p.errorCode();
        out.partitions()
            .add(
                new OffsetFetchResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setCommittedOffset(p.committedOffset())
                    .setCommittedLeaderEpoch(p.committedLeaderEpoch())
                    .setMetadata(p.metadata())
                    .setErrorCode(error));
      }
    }
    return response;
  }
}
