package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.authorizer.StandardAcl;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.AccessControlEntryRecord;
import io.brook.metadata.record.RemoveAccessControlEntryRecord;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class AclControlTest {
  private static AclBinding binding(
      ResourceType type, String name, PatternType pattern, String principal, AclOperation op) {
    return new AclBinding(
        new ResourcePattern(type, name, pattern),
        new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
  }

  private static final AclBinding READ_ORDERS =
      binding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", AclOperation.READ);
  private static final AclBinding WRITE_PREFIX =
      binding(ResourceType.TOPIC, "ord", PatternType.PREFIXED, "User:bob", AclOperation.WRITE);

  @Test
  void createdAclsAreRecordsWithFreshIdsInTheImage() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().build();

    // When
    ControllerResult<List<ApiError>> result =
        ctx.controller.createAcls(List.of(READ_ORDERS, WRITE_PREFIX));
    ctx.replay(result);

    // Then
    assertThat(result.response()).containsExactly(ApiError.NONE, ApiError.NONE);
    assertThat(result.records()).hasSize(2).allMatch(r -> r instanceof AccessControlEntryRecord);
    assertThat(ctx.image.acls().byId().values())
        .extracting(StandardAcl::toBinding)
        .containsExactly(READ_ORDERS, WRITE_PREFIX);
    // The image rebuilds from its records (a snapshot) with the same ACLs and ids.
    assertThat(MetadataImage.EMPTY.apply(ctx.image.toRecords(), ctx.image.offset()))
        .isEqualTo(ctx.image);
  }

  @Test
  void anAclThatExistsAlreadyIsAcceptedWithoutANewRecord() {
    ControllerTestContext ctx = ControllerTestContext.builder().build();
    ctx.replay(ctx.controller.createAcls(List.of(READ_ORDERS)));

    ControllerResult<List<ApiError>> again =
        ctx.controller.createAcls(List.of(READ_ORDERS, READ_ORDERS));

    assertThat(again.response()).containsExactly(ApiError.NONE, ApiError.NONE);
    assertThat(again.records()).isEmpty();
  }

  /** Unknown codes (kafka-clients' types already refuse ANY and MATCH in a binding). */
  @Test
  void invalidBindingsAreRefusedOneByOne() {
    ControllerTestContext ctx = ControllerTestContext.builder().build();
    List<AclBinding> bindings =
        List.of(
            binding(
                ResourceType.UNKNOWN, "orders", PatternType.LITERAL, "User:a", AclOperation.READ),
            binding(ResourceType.TOPIC, "orders", PatternType.UNKNOWN, "User:a", AclOperation.READ),
            binding(ResourceType.TOPIC, "", PatternType.LITERAL, "User:a", AclOperation.READ),
            binding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "alice", AclOperation.READ),
            binding(
                ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:a", AclOperation.UNKNOWN),
            READ_ORDERS);

    ControllerResult<List<ApiError>> result = ctx.controller.createAcls(bindings);

    assertThat(result.response())
        .extracting(ApiError::error)
        .containsExactly(
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
            Errors.NONE);
    assertThat(result.records()).hasSize(1);
  }

  @Test
  void deleteRemovesWhatEachFilterMatchesOnce() {
    ControllerTestContext ctx = ControllerTestContext.builder().build();
    ctx.replay(ctx.controller.createAcls(List.of(READ_ORDERS, WRITE_PREFIX)));
    AclBindingFilter allTopics =
        new AclBindingFilter(
            new ResourcePatternFilter(ResourceType.TOPIC, null, PatternType.ANY),
            AccessControlEntryFilter.ANY);
    AclBindingFilter matchOrders =
        new AclBindingFilter(
            new ResourcePatternFilter(ResourceType.TOPIC, "orders", PatternType.MATCH),
            AccessControlEntryFilter.ANY);

    ControllerResult<List<AclControl.FilterResult>> result =
        ctx.controller.deleteAcls(List.of(matchOrders, allTopics));
    ctx.replay(result);

    // MATCH finds the literal ACL of the name and the prefixed one covering it.
    assertThat(result.response().get(0).deleted())
        .extracting(StandardAcl::toBinding)
        .containsExactlyInAnyOrder(READ_ORDERS, WRITE_PREFIX);
    assertThat(result.response().get(1).deleted()).hasSize(2);
    assertThat(result.records())
        .hasSize(2)
        .allMatch(r -> r instanceof RemoveAccessControlEntryRecord);
    assertThat(ctx.image.acls().isEmpty()).isTrue();
  }
}
