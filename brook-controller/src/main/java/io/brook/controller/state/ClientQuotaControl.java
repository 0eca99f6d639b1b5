package io.brook.controller.state;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.quota.QuotaKeys;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.EntityData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.EntryData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.OpData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller side of client quotas (KIP-546): validates AlterClientQuotas as Kafka's controller
 * does and turns each valid entry into {@link ClientQuotaRecord}s. Entries are independent: one
 * failing does not stop the others. With {@code validateOnly} nothing is written.
 */
public final class ClientQuotaControl {
  private static final Set<Set<String>> VALID_ENTITIES =
      Set.of(
          Set.of(QuotaKeys.USER),
          Set.of(QuotaKeys.CLIENT_ID),
          Set.of(QuotaKeys.USER, QuotaKeys.CLIENT_ID),
          Set.of(QuotaKeys.IP));

  private ClientQuotaControl() {}

  /** AlterClientQuotas: one response entry per request entry, records for the valid ones. */
  public static ControllerResult<AlterClientQuotasResponseData> alter(
      AlterClientQuotasRequestData request) {
    List<MetadataRecord> records = new ArrayList<>();
    AlterClientQuotasResponseData response = new AlterClientQuotasResponseData();
    for (EntryData entry : request.entries()) {
      AlterClientQuotasResponseData.EntryData result =
          new AlterClientQuotasResponseData.EntryData();
      for (EntityData e : entry.entity()) {
        result
            .entity()
            .add(
                new AlterClientQuotasResponseData.EntityData()
                    .setEntityType(e.entityType())
                    .setEntityName(e.entityName()));
      }
      List<ClientQuotaRecord> ofEntry = new ArrayList<>();
      String error = validate(entry, ofEntry);
      if (error != null) {
        result.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(error);
      } else if (!request.validateOnly()) {
        records.addAll(ofEntry);
      }
      response.entries().add(result);
    }
    return ControllerResult.of(records, response);
  }

  /** The entry's error, or null after adding its records to {@code out}. */
  private static String validate(EntryData entry, List<ClientQuotaRecord> out) {
    SortedMap<String, String> entity = new TreeMap<>();
    for (EntityData e : entry.entity()) {
      if (entity.containsKey(e.entityType())) {
        return "Duplicate " + e.entityType() + " in the quota entity";
      }
      entity.put(e.entityType(), e.entityName());
    }
    if (entity.isEmpty()) {
      return "Invalid empty client quota entity";
    }
    if (!VALID_ENTITIES.contains(entity.keySet())) {
      return "Invalid quota entity combination " + entity.keySet();
    }
    boolean ip = entity.containsKey(QuotaKeys.IP);
    if (ip && entity.get(QuotaKeys.IP) != null && !isIpAddress(entity.get(QuotaKeys.IP))) {
      return entity.get(QuotaKeys.IP) + " is not a valid IP address";
    }
    Set<String> keys = new HashSet<>();
    for (OpData op : entry.ops()) {
      if (!keys.add(op.key())) {
        return "Duplicate quota key " + op.key();
      }
      if (!(ip ? QuotaKeys.IP_KEYS : QuotaKeys.CLIENT_KEYS).contains(op.key())) {
        return "Invalid configuration key " + op.key();
      }
      if (!op.remove()) {
        double value = op.value();
        if (!(value > 0) || Double.isInfinite(value)) {
          return "Quota " + op.key() + " must be a positive number, not " + value;
        }
        if (QuotaKeys.WHOLE_NUMBER_KEYS.contains(op.key()) && value != Math.rint(value)) {
          return "Quota " + op.key() + " must be a whole number, not " + value;
        }
      }
      out.add(new ClientQuotaRecord(entity, op.key(), op.remove() ? 0 : op.value(), op.remove()));
    }
    return null;
  }

  /** A literal IPv4 or IPv6 address; a host name is refused, never resolved. */
  private static boolean isIpAddress(String name) {
    boolean literal =
        name.matches("\\d{1,3}(\\.\\d{1,3}){3}")
            || name.matches("[0-9a-fA-F:.]+") && name.contains(":");
    if (!literal) {
      return false;
    }
    try {
      java.net.InetAddress.getByName(name); // a literal: parsed, no lookup
      return true;
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
