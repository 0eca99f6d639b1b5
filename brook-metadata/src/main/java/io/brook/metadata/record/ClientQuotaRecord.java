package io.brook.metadata.record;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One client quota of one entity, as Kafka's {@code ClientQuotaRecord}: sets {@code key} to {@code
 * value}, or removes it when {@code remove}.
 *
 * @param entity the entity by type ({@code user}, {@code client-id}, {@code ip}); a {@code null}
 *     name is that type's default entity. Kept sorted by type, so equal entities compare equal.
 * @param key the quota, for example {@code producer_byte_rate}
 * @param value the quota's value (ignored when {@code remove})
 * @param remove whether the quota is removed instead of set
 */
public record ClientQuotaRecord(
    SortedMap<String, String> entity, String key, double value, boolean remove)
    implements MetadataRecord {
  public ClientQuotaRecord {
    Objects.requireNonNull(key, "key");
    entity = Collections.unmodifiableSortedMap(new TreeMap<>(entity));
  }

  /** A record for an entity given as any map ({@code null} names are defaults). */
  public static ClientQuotaRecord of(
      Map<String, String> entity, String key, double value, boolean remove) {
    return new ClientQuotaRecord(new TreeMap<>(entity), key, value, remove);
  }
}
