package io.brook.broker.replica;

import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/** Metadata records the replica tests build their images from. */
final class TestImages {
  private TestImages() {}

  /** An unfenced registration of each broker, on a port of its own. */
  static List<MetadataRecord> registeredBrokers(List<Integer> ids) {
    List<MetadataRecord> records = new ArrayList<>();
    for (int id : ids) {
      records.add(
          new RegisterBrokerRecord(
              id,
              Uuid.randomUuid(),
              10 + id,
              List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9090 + id, "PLAINTEXT")),
              Optional.empty(),
              false));
    }
    return records;
  }
}
