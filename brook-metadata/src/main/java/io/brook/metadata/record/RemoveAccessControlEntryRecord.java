package io.brook.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/** An ACL was deleted: Kafka's {@code RemoveAccessControlEntryRecord}. */
public record RemoveAccessControlEntryRecord(Uuid id) implements MetadataRecord {
  public RemoveAccessControlEntryRecord {
    Objects.requireNonNull(id, "id");
  }
}
