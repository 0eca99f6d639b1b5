package io.brook.metadata.record;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The JSON form of metadata records, written by hand so the stored format does not follow
 * refactorings of the Java types.
 *
 * <p>Every record is one object whose {@code "type"} field names it (the record class's simple
 * name, for example {@code "TopicRecord"}); the other fields carry the record's components under
 * their Java names. {@link Uuid}s are their base64 string ({@link Uuid#toString()}), optionals are
 * the value or JSON {@code null}, {@link ConfigResource.Type} is the enum constant's name. Decoding
 * is strict: an unknown type, a missing field or a value of the wrong kind is a {@link
 * RecordFormatException}. Unknown extra fields are ignored, so a later version may add fields.
 * Fields added later are optional when decoding: {@code addingReplicas}, {@code removingReplicas},
 * {@code eligibleLeaderReplicas} and {@code lastKnownElr} of {@code PartitionRecord} (absent means
 * empty, and they are written only when not empty) and of {@code PartitionChangeRecord} (absent
 * means unchanged).
 *
 * <p>Thread-safe.
 */
public final class RecordJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Shared, thread-safe once configured; used only for the tree model. */
  public static final ObjectMapper MAPPER = new ObjectMapper();

  private RecordJson() {}

  /** Thrown when JSON does not describe a valid record. */
  public static final class RecordFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public RecordFormatException(String message) {
      super(message);
    }

    public RecordFormatException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Records as a JSON array, in order. */
  public static ArrayNode toJson(List<MetadataRecord> records) {
    ArrayNode array = NODES.arrayNode(records.size());
    for (MetadataRecord record : records) {
      array.add(toJson(record));
    }
    return array;
  }

  /** The records of a JSON array, in order. */
  public static List<MetadataRecord> listFromJson(JsonNode node) {
    if (node == null || !node.isArray()) {
      throw new RecordFormatException("expected a JSON array of records");
    }
    List<MetadataRecord> records = new ArrayList<>(node.size());
    for (JsonNode element : node) {
      records.add(fromJson(element));
    }
    return records;
  }

  /** One record as a JSON object with a {@code "type"} discriminator. */
  public static ObjectNode toJson(MetadataRecord record) {
    ObjectNode o = NODES.objectNode();
    o.put("type", record.getClass().getSimpleName());
    if (record instanceof RegisterBrokerRecord r) {
      o.put("brokerId", r.brokerId());
      o.put("incarnationId", r.incarnationId().toString());
      o.put("brokerEpoch", r.brokerEpoch());
      ArrayNode endpoints = o.putArray("endpoints");
      for (BrokerEndpoint e : r.endpoints()) {
        ObjectNode endpoint = endpoints.addObject();
        endpoint.put("listenerName", e.listenerName());
        endpoint.put("host", e.host());
        endpoint.put("port", e.port());
        endpoint.put("securityProtocol", e.securityProtocol());
      }
      o.put("rack", r.rack().orElse(null));
      o.put("fenced", r.fenced());
    } else if (record instanceof UnregisterBrokerRecord r) {
      o.put("brokerId", r.brokerId());
      o.put("brokerEpoch", r.brokerEpoch());
    } else if (record instanceof FenceBrokerRecord r) {
      o.put("brokerId", r.brokerId());
      o.put("brokerEpoch", r.brokerEpoch());
    } else if (record instanceof UnfenceBrokerRecord r) {
      o.put("brokerId", r.brokerId());
      o.put("brokerEpoch", r.brokerEpoch());
    } else if (record instanceof TopicRecord r) {
      o.put("name", r.name());
      o.put("topicId", r.topicId().toString());
    } else if (record instanceof RemoveTopicRecord r) {
      o.put("topicId", r.topicId().toString());
    } else if (record instanceof PartitionRecord r) {
      o.put("topicId", r.topicId().toString());
      o.put("partitionId", r.partitionId());
      o.set("replicas", ints(r.replicas()));
      o.set("isr", ints(r.isr()));
      o.put("leader", r.leader());
      o.put("leaderEpoch", r.leaderEpoch());
      o.put("partitionEpoch", r.partitionEpoch());
      // Written only during a reassignment, so every other partition keeps its old form.
      if (!r.addingReplicas().isEmpty()) {
        o.set("addingReplicas", ints(r.addingReplicas()));
      }
      if (!r.removingReplicas().isEmpty()) {
        o.set("removingReplicas", ints(r.removingReplicas()));
      }
      if (!r.eligibleLeaderReplicas().isEmpty()) {
        o.set("eligibleLeaderReplicas", ints(r.eligibleLeaderReplicas()));
      }
      if (!r.lastKnownElr().isEmpty()) {
        o.set("lastKnownElr", ints(r.lastKnownElr()));
      }
    } else if (record instanceof PartitionChangeRecord r) {
      o.put("topicId", r.topicId().toString());
      o.put("partitionId", r.partitionId());
      o.set("isr", r.isr().map(RecordJson::ints).orElse(null));
      o.set("leader", r.leader().map(NODES::numberNode).orElse(null));
      o.set("replicas", r.replicas().map(RecordJson::ints).orElse(null));
      r.addingReplicas().ifPresent(adding -> o.set("addingReplicas", ints(adding)));
      r.removingReplicas().ifPresent(removing -> o.set("removingReplicas", ints(removing)));
      r.eligibleLeaderReplicas().ifPresent(elr -> o.set("eligibleLeaderReplicas", ints(elr)));
      r.lastKnownElr().ifPresent(known -> o.set("lastKnownElr", ints(known)));
    } else if (record instanceof ConfigRecord r) {
      o.put("resourceType", r.resourceType().name());
      o.put("resourceName", r.resourceName());
      o.put("name", r.name());
      o.put("value", r.value());
    } else if (record instanceof ProducerIdsRecord r) {
      o.put("brokerId", r.brokerId());
      o.put("brokerEpoch", r.brokerEpoch());
      o.put("nextProducerId", r.nextProducerId());
    } else if (record instanceof ClusterIdRecord r) {
      o.put("clusterId", r.clusterId());
    } else if (record instanceof FeatureLevelRecord r) {
      o.put("name", r.name());
      o.put("featureLevel", r.featureLevel());
    } else if (record instanceof UserScramCredentialRecord r) {
      o.put("name", r.name());
      o.put("mechanism", r.mechanism());
      o.put("salt", r.salt());
      o.put("storedKey", r.storedKey());
      o.put("serverKey", r.serverKey());
      o.put("iterations", r.iterations());
    } else if (record instanceof RemoveUserScramCredentialRecord r) {
      o.put("name", r.name());
      o.put("mechanism", r.mechanism());
    } else if (record instanceof AccessControlEntryRecord r) {
      o.put("id", r.id().toString());
      o.put("resourceType", r.resourceType());
      o.put("resourceName", r.resourceName());
      o.put("patternType", r.patternType());
      o.put("principal", r.principal());
      o.put("host", r.host());
      o.put("operation", r.operation());
      o.put("permissionType", r.permissionType());
    } else if (record instanceof RemoveAccessControlEntryRecord r) {
      o.put("id", r.id().toString());
    } else if (record instanceof ClientQuotaRecord r) {
      ObjectNode entity = o.putObject("entity");
      r.entity().forEach(entity::put);
      o.put("key", r.key());
      o.put("value", r.value());
      o.put("remove", r.remove());
    } else {
      throw new IllegalArgumentException("unknown record " + record.getClass());
    }
    return o;
  }

  /** The record a JSON object describes. */
  public static MetadataRecord fromJson(JsonNode o) {
    if (o == null || !o.isObject()) {
      throw new RecordFormatException("expected a JSON object for a record");
    }
    String type = text(o, "type");
    switch (type) {
      case "RegisterBrokerRecord":
        {
          List<BrokerEndpoint> endpoints = new ArrayList<>();
          for (JsonNode e : array(o, "endpoints")) {
            endpoints.add(
                new BrokerEndpoint(
                    text(e, "listenerName"),
                    text(e, "host"),
                    integer(e, "port"),
                    text(e, "securityProtocol")));
          }
          return new RegisterBrokerRecord(
              integer(o, "brokerId"),
              uuid(o, "incarnationId"),
              longValue(o, "brokerEpoch"),
              endpoints,
              Optional.ofNullable(nullableText(o, "rack")),
              bool(o, "fenced"));
        }
      case "UnregisterBrokerRecord":
        return new UnregisterBrokerRecord(integer(o, "brokerId"), longValue(o, "brokerEpoch"));
      case "FenceBrokerRecord":
        return new FenceBrokerRecord(integer(o, "brokerId"), longValue(o, "brokerEpoch"));
      case "UnfenceBrokerRecord":
        return new UnfenceBrokerRecord(integer(o, "brokerId"), longValue(o, "brokerEpoch"));
      case "TopicRecord":
        return new TopicRecord(text(o, "name"), uuid(o, "topicId"));
      case "RemoveTopicRecord":
        return new RemoveTopicRecord(uuid(o, "topicId"));
      case "PartitionRecord":
        return new PartitionRecord(
            uuid(o, "topicId"),
            integer(o, "partitionId"),
            intList(field(o, "replicas"), "replicas"),
            intList(field(o, "isr"), "isr"),
            integer(o, "leader"),
            integer(o, "leaderEpoch"),
            integer(o, "partitionEpoch"),
            optionalIntList(o, "addingReplicas").orElse(List.of()),
            optionalIntList(o, "removingReplicas").orElse(List.of()),
            optionalIntList(o, "eligibleLeaderReplicas").orElse(List.of()),
            optionalIntList(o, "lastKnownElr").orElse(List.of()));
      case "PartitionChangeRecord":
        {
          JsonNode isr = field(o, "isr");
          JsonNode leader = field(o, "leader");
          JsonNode replicas = field(o, "replicas");
          return new PartitionChangeRecord(
              uuid(o, "topicId"),
              integer(o, "partitionId"),
              isr.isNull() ? Optional.empty() : Optional.of(intList(isr, "isr")),
              leader.isNull() ? Optional.empty() : Optional.of(integer(o, "leader")),
              replicas.isNull() ? Optional.empty() : Optional.of(intList(replicas, "replicas")),
              optionalIntList(o, "addingReplicas"),
              optionalIntList(o, "removingReplicas"),
              optionalIntList(o, "eligibleLeaderReplicas"),
              optionalIntList(o, "lastKnownElr"));
        }
      case "ConfigRecord":
        {
          ConfigResource.Type resourceType;
          String name = text(o, "resourceType");
          try {
            resourceType = ConfigResource.Type.valueOf(name);
          } catch (IllegalArgumentException e) {
            throw new RecordFormatException("unknown config resource type " + name, e);
          }
          return new ConfigRecord(
              resourceType, text(o, "resourceName"), text(o, "name"), nullableText(o, "value"));
        }
      case "ProducerIdsRecord":
        return new ProducerIdsRecord(
            integer(o, "brokerId"), longValue(o, "brokerEpoch"), longValue(o, "nextProducerId"));
      case "ClusterIdRecord":
        return new ClusterIdRecord(text(o, "clusterId"));
      case "FeatureLevelRecord":
        return new FeatureLevelRecord(text(o, "name"), (short) integer(o, "featureLevel"));
      case "UserScramCredentialRecord":
        return new UserScramCredentialRecord(
            text(o, "name"),
            (byte) integer(o, "mechanism"),
            binary(o, "salt"),
            binary(o, "storedKey"),
            binary(o, "serverKey"),
            integer(o, "iterations"));
      case "RemoveUserScramCredentialRecord":
        return new RemoveUserScramCredentialRecord(text(o, "name"), (byte) integer(o, "mechanism"));
      case "AccessControlEntryRecord":
        return new AccessControlEntryRecord(
            uuid(o, "id"),
            int8(o, "resourceType"),
            text(o, "resourceName"),
            int8(o, "patternType"),
            text(o, "principal"),
            text(o, "host"),
            int8(o, "operation"),
            int8(o, "permissionType"));
      case "RemoveAccessControlEntryRecord":
        return new RemoveAccessControlEntryRecord(uuid(o, "id"));
      case "ClientQuotaRecord":
        return new ClientQuotaRecord(
            quotaEntity(o), text(o, "key"), doubleValue(o, "value"), bool(o, "remove"));
      default:
        throw new RecordFormatException("unknown record type " + type);
    }
  }

  /** An object of entity type to name, {@code null} for the default entity. */
  private static java.util.SortedMap<String, String> quotaEntity(JsonNode o) {
    JsonNode entity = field(o, "entity");
    if (!entity.isObject()) {
      throw new RecordFormatException("field entity is not an object");
    }
    java.util.SortedMap<String, String> types = new java.util.TreeMap<>();
    for (var it = entity.fields(); it.hasNext(); ) {
      var e = it.next();
      types.put(e.getKey(), nullableText(entity, e.getKey()));
    }
    return types;
  }

  private static double doubleValue(JsonNode o, String name) {
    JsonNode value = field(o, name);
    if (!value.isNumber()) {
      throw new RecordFormatException("field " + name + " is not a number");
    }
    return value.doubleValue();
  }

  /** Jackson writes byte arrays as base64 text. */
  private static byte[] binary(JsonNode o, String name) {
    JsonNode value = field(o, name);
    try {
      if (!value.isTextual()) {
        throw new RecordFormatException("field " + name + " is not base64 text");
      }
      return value.binaryValue();
    } catch (java.io.IOException e) {
      throw new RecordFormatException("field " + name + " is not base64: " + e.getMessage(), e);
    }
  }

  private static ArrayNode ints(List<Integer> values) {
    ArrayNode array = NODES.arrayNode(values.size());
    values.forEach(array::add);
    return array;
  }

  private static JsonNode field(JsonNode o, String name) {
    JsonNode value = o.get(name);
    if (value == null) {
      throw new RecordFormatException("missing field " + name);
    }
    return value;
  }

  private static String text(JsonNode o, String name) {
    JsonNode value = field(o, name);
    if (!value.isTextual()) {
      throw new RecordFormatException("field " + name + " is not a string");
    }
    return value.textValue();
  }

  private static String nullableText(JsonNode o, String name) {
    JsonNode value = field(o, name);
    return value.isNull() ? null : text(o, name);
  }

  private static boolean bool(JsonNode o, String name) {
    JsonNode value = field(o, name);
    if (!value.isBoolean()) {
      throw new RecordFormatException("field " + name + " is not a boolean");
    }
    return value.booleanValue();
  }

  private static int integer(JsonNode o, String name) {
    return intValue(field(o, name), name);
  }

  private static int intValue(JsonNode value, String name) {
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new RecordFormatException("field " + name + " is not a 32-bit integer");
    }
    return value.intValue();
  }

  private static byte int8(JsonNode o, String name) {
    int value = integer(o, name);
    if (value < Byte.MIN_VALUE || value > Byte.MAX_VALUE) {
      throw new RecordFormatException("field " + name + " is not an 8-bit integer");
    }
    return (byte) value;
  }

  private static long longValue(JsonNode o, String name) {
    JsonNode value = field(o, name);
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new RecordFormatException("field " + name + " is not a 64-bit integer");
    }
    return value.longValue();
  }

  private static JsonNode array(JsonNode o, String name) {
    JsonNode value = field(o, name);
    if (!value.isArray()) {
      throw new RecordFormatException("field " + name + " is not an array");
    }
    return value;
  }

  private static List<Integer> intList(JsonNode value, String name) {
    if (!value.isArray()) {
      throw new RecordFormatException("field " + name + " is not an array");
    }
    List<Integer> list = new ArrayList<>(value.size());
    for (JsonNode element : value) {
      list.add(intValue(element, name));
    }
    return list;
  }

  /** A list field added after the first version: absent (or null) means no value. */
  private static Optional<List<Integer>> optionalIntList(JsonNode o, String name) {
    JsonNode value = o.get(name);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(intList(value, name));
  }

  private static Uuid uuid(JsonNode o, String name) {
    String text = text(o, name);
    try {
      return Uuid.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new RecordFormatException("field " + name + " is not a Uuid: " + text, e);
    }
  }
}
