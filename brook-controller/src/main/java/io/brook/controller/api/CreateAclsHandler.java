package io.brook.controller.api;

import io.brook.broker.api.AclApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.metadata.controller.ApiError;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateAcls, decided by the active controller (forwarded there like the other admin APIs): one
 * result per creation, in order. Needs ALTER on the cluster (checked in front of the handler on the
 * broker that received it).
 */
public final class CreateAclsHandler extends AclApi {
  private final TopicAdmin admin;

  public CreateAclsHandler(TopicAdmin admin, RequestAuthorizer authorizer) {
    super(ApiKeys.CREATE_ACLS, authorizer);
    this.admin = admin;
  }

  @Override
  protected ApiMessage handleAcls(ApiMessage message) {
    CreateAclsRequestData request = (CreateAclsRequestData) message;
    // Each creation is parsed on its own: one with an unknown code fails alone.
    List<AclBinding> valid = new ArrayList<>();
    List<ApiError> parseErrors = new ArrayList<>();
    for (CreateAclsRequestData.AclCreation creation : request.creations()) {
      try {
        valid.add(AclApi.binding(creation));
        parseErrors.add(null);
      } catch (RuntimeException e) {
        parseErrors.add(new ApiError(Errors.INVALID_REQUEST, e.getMessage()));
      }
    }
    List<ApiError> created = valid.isEmpty() ? List.of() : admin.createAcls(valid);
    CreateAclsResponseData response = new CreateAclsResponseData();
    int next = 0;
    for (ApiError parseError : parseErrors) {
      ApiError result = parseError != null ? parseError : created.get(next++);
      response
          .results()
          .add(
              new CreateAclsResponseData.AclCreationResult()
                  .setErrorCode(result.error().code())
                  .setErrorMessage(result.isFailure() ? result.messageOrDefault() : null));
    }
    return response;
  }
}
