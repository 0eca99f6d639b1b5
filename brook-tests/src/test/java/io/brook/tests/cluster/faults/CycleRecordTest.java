package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A cycle's JSON line, and the window measured from the acknowledgements' arrival times. */
class CycleRecordTest {
  @Test
  void writesOneLineOfJsonWithEscapedStringsListsAndMaps() {
    Map<String, Object> target = new LinkedHashMap<>();
    target.put("node", 2);
    target.put("role", "leader");
    String json =
        new CycleRecord()
            .put("seed", 7L)
            .put("fault", "kill")
            .put("targets", List.of(target))
            .put("violations", List.of("lost: \"p1-3\"\nat 0/3\t\u0001"))
            .put("missing", null)
            .toJson();

    assertThat(json)
        .isEqualTo(
            "{\"seed\":7,\"fault\":\"kill\",\"targets\":[{\"node\":2,\"role\":\"leader\"}],"
                + "\"violations\":[\"lost: \\\"p1-3\\\"\\nat 0/3\\t\\u0001\"],\"missing\":null}");
  }

  @Test
  void everyPartitionAckedAtIsWhenTheLastPartitionTookItsFirstWriteAfterTheInstant() {
    AckedLog log = new AckedLog();
    log.acked(1, 0, 0, 0);
    long from = log.acks().get(0).nanos();
    assertThat(log.everyPartitionAckedAt(2, from)).isEqualTo(-1);

    log.acked(1, 1, 1, 0);
    log.acked(1, 2, 0, 1);
    log.acked(1, 3, 1, 1);
    List<AckedLog.Ack> acks = log.acks();
    long before = from - 1;
    // Partition 0's first write after `from` came after partition 1's, so it ends the window.
    assertThat(log.everyPartitionAckedAt(2, from)).isEqualTo(acks.get(2).nanos());
    assertThat(log.everyPartitionAckedAt(2, before)).isEqualTo(acks.get(1).nanos());
  }
}
