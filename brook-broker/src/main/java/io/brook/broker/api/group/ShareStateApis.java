package io.brook.broker.api.group;

import io.brook.coordinator.service.ShareCoordinatorService;
import io.brook.protocol.ApiHandler;
import java.util.List;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The Kafka APIs the share coordinator serves to partition leaders (broker to broker: they need
 * CLUSTER_ACTION, as in Kafka).
 */
public final class ShareStateApis {
  private ShareStateApis() {}

  public static List<ApiHandler> handlers(ShareCoordinatorService shares) {
    return List.of(
        new CoordinatorApi<>(
            ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
            ApiKeys.INITIALIZE_SHARE_GROUP_STATE.latestVersion(),
            InitializeShareGroupStateRequestData.class,
            shares::initializeShareGroupState),
        new CoordinatorApi<>(
            ApiKeys.READ_SHARE_GROUP_STATE,
            ApiKeys.READ_SHARE_GROUP_STATE.latestVersion(),
            ReadShareGroupStateRequestData.class,
            shares::readShareGroupState),
        new CoordinatorApi<>(
            ApiKeys.WRITE_SHARE_GROUP_STATE,
            ApiKeys.WRITE_SHARE_GROUP_STATE.latestVersion(),
            WriteShareGroupStateRequestData.class,
            shares::writeShareGroupState),
        new CoordinatorApi<>(
            ApiKeys.DELETE_SHARE_GROUP_STATE,
            ApiKeys.DELETE_SHARE_GROUP_STATE.latestVersion(),
            DeleteShareGroupStateRequestData.class,
            shares::deleteShareGroupState),
        new CoordinatorApi<>(
            ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY,
            ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY.latestVersion(),
            ReadShareGroupStateSummaryRequestData.class,
            shares::readShareGroupStateSummary));
  }
}
