package io.brook.tests.cluster.faults;

import java.util.List;

/**
 * A workload the {@link ReplicationFaultCampaign} runs through one fault cycle beside the
 * idempotent producers of {@link FaultScenario}: started on topics of its own before the fault,
 * stopped and checked once the cluster has recovered.
 */
interface CampaignWorkload extends AutoCloseable {
  /** The name {@code --workloads} selects it by and the cycle records carry. */
  String name();

  /** Creates its topics (named from {@code prefix}) and starts its clients. */
  void start(String bootstrap, String prefix) throws Exception;

  /** Stops its clients and checks what they did against what the cluster holds. */
  Result finish() throws Exception;

  @Override
  void close();

  /** What a workload's checker found: the records acknowledged and every violation. */
  record Result(long acknowledged, List<String> violations) {}
}
