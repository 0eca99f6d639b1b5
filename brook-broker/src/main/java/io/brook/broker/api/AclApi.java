package io.brook.broker.api;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What the ACL APIs share (DescribeAcls here, CreateAcls and DeleteAcls on the controller): without
 * an authorizer they answer SECURITY_DISABLED, as in Kafka; their wire filters become
 * kafka-clients' filter type.
 */
public abstract class AclApi extends KafkaApi {
  private final RequestAuthorizer authorizer;

  protected AclApi(ApiKeys apiKey, RequestAuthorizer authorizer) {
    super(apiKey);
    this.authorizer = authorizer;
  }

  @Override
  public final CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    if (!authorizer.enabled()) {
      return CompletableFuture.failedFuture(
          new SecurityDisabledException("No Authorizer is configured."));
    }
    return CompletableFuture.completedFuture(handleAcls(request));
  }

  /** The answer, with an authorizer configured. */
  protected abstract ApiMessage handleAcls(ApiMessage request);

  public static AclBindingFilter filter(
      byte resourceType,
      String resourceName,
      byte patternType,
      String principal,
      String host,
      byte operation,
      byte permissionType) {
    return new AclBindingFilter(
        new ResourcePatternFilter(
            ResourceType.fromCode(resourceType), resourceName, PatternType.fromCode(patternType)),
        new AccessControlEntryFilter(
            principal,
            host,
            AclOperation.fromCode(operation),
            AclPermissionType.fromCode(permissionType)));
  }

  /** One creation of a CreateAcls request as a binding; fails on an unknown code. */
  public static AclBinding binding(CreateAclsRequestData.AclCreation creation) {
    return CreateAclsRequest.aclBinding(creation);
  }

  /** A deleted ACL as DeleteAcls answers it. */
  public static DeleteAclsResponseData.DeleteAclsMatchingAcl deleted(AclBinding binding) {
    return DeleteAclsResponse.matchingAcl(binding, ApiError.NONE);
  }
}
