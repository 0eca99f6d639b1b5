package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.util.Optional;

/** A fault that cuts links, so it needs the nodes in network namespaces. */
abstract class NetworkFault implements CampaignFault {
  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    if (cluster.inNamespaces()) {
      return Optional.empty();
    }
    return Optional.of(
        "links can be cut only with the nodes in network namespaces: "
            + ClusterHarness.networkFaultsUnavailableReason().orElse("the cluster is on loopback"));
  }
}
