package io.brook.broker.api;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quota.QuotaKeys;
import io.brook.protocol.RequestContext;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData.ComponentData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntityData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntryData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.ValueData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;

/**
 * DescribeClientQuotas (KIP-546) from this broker's metadata image, with Kafka's filter semantics:
 * a component matches its entity type by exact name, the default entity, or any name at all; an
 * entity must have every filtered type, and with {@code strict} no other type.
 */
public final class DescribeClientQuotasHandler extends KafkaApi {
  private static final byte EXACT = DescribeClientQuotasRequest.MATCH_TYPE_EXACT;
  private static final byte DEFAULT = DescribeClientQuotasRequest.MATCH_TYPE_DEFAULT;
  private static final byte SPECIFIED = DescribeClientQuotasRequest.MATCH_TYPE_SPECIFIED;

  private final Supplier<MetadataImage> image;

  public DescribeClientQuotasHandler(Supplier<MetadataImage> image) {
    super(ApiKeys.DESCRIBE_CLIENT_QUOTAS);
    this.image = image;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    DescribeClientQuotasRequestData describe = (DescribeClientQuotasRequestData) request;
    Map<String, String> exact = new HashMap<>();
    Set<String> anyName = new HashSet<>();
    for (ComponentData c : describe.components()) {
      String error = null;
      if (exact.containsKey(c.entityType()) || anyName.contains(c.entityType())) {
        error = "Entity type " + c.entityType() + " cannot appear more than once in the filter";
      } else if (c.matchType() == EXACT && c.match() != null) {
        exact.put(c.entityType(), c.match());
      } else if (c.matchType() == DEFAULT && c.match() == null) {
        exact.put(c.entityType(), null);
      } else if (c.matchType() == SPECIFIED && c.match() == null) {
        anyName.add(c.entityType());
      } else {
        error = "Invalid match type " + c.matchType() + " with match " + c.match();
      }
      if (error == null
          && (exact.containsKey(QuotaKeys.IP) || anyName.contains(QuotaKeys.IP))
          && exact.size() + anyName.size() > 1) {
        error = "An ip entity cannot be combined with user or client-id";
      }
      if (error != null) {
        return CompletableFuture.completedFuture(
            new DescribeClientQuotasResponseData()
                .setErrorCode(Errors.INVALID_REQUEST.code())
                .setErrorMessage(error)
                .setEntries(null));
      }
    }
    DescribeClientQuotasResponseData response = new DescribeClientQuotasResponseData();
    image
        .get()
        .clientQuotas()
        .forEach(
            (entity, quotas) -> {
              if (matches(entity, exact, anyName, describe.strict())) {
                EntryData entry = new EntryData();
                entity.forEach(
                    (type, name) ->
                        entry
                            .entity()
                            .add(new EntityData().setEntityType(type).setEntityName(name)));
                quotas.forEach(
                    (key, value) ->
                        entry.values().add(new ValueData().setKey(key).setValue(value)));
                response.entries().add(entry);
              }
            });
    return CompletableFuture.completedFuture(response);
  }

  private static boolean matches(
      Map<String, String> entity, Map<String, String> exact, Set<String> anyName, boolean strict) {
    if (strict && entity.size() != exact.size() + anyName.size()) {
      return false;
    }
    for (Map.Entry<String, String> e : exact.entrySet()) {
      if (!entity.containsKey(e.getKey())
          || !Objects.equals(e.getValue(), entity.get(e.getKey()))) {
        return false;
      }
    }
    return entity.keySet().containsAll(anyName);
  }
}
