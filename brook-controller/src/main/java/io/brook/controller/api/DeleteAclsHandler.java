package io.brook.controller.api;

import io.brook.broker.api.AclApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.controller.state.AclControl;
import io.brook.metadata.authorizer.StandardAcl;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * DeleteAcls, decided by the active controller: every ACL each filter matches is deleted and listed
 * in that filter's result. Needs ALTER on the cluster (checked in front of the handler).
 */
public final class DeleteAclsHandler extends AclApi {
  private final TopicAdmin admin;

  public DeleteAclsHandler(TopicAdmin admin, RequestAuthorizer authorizer) {
    super(ApiKeys.DELETE_ACLS, authorizer);
    this.admin = admin;
  }

  @Override
  protected ApiMessage handleAcls(ApiMessage message) {
    DeleteAclsRequestData request = (DeleteAclsRequestData) message;
    List<AclBindingFilter> filters = new ArrayList<>(request.filters().size());
    for (DeleteAclsRequestData.DeleteAclsFilter f : request.filters()) {
      filters.add(
          AclApi.filter(
              f.resourceTypeFilter(),
              f.resourceNameFilter(),
              f.patternTypeFilter(),
              f.principalFilter(),
              f.hostFilter(),
              f.operation(),
              f.permissionType()));
    }
    DeleteAclsResponseData response = new DeleteAclsResponseData();
    for (AclControl.FilterResult result : admin.deleteAcls(filters)) {
      DeleteAclsResponseData.DeleteAclsFilterResult out =
          new DeleteAclsResponseData.DeleteAclsFilterResult()
              .setErrorCode(result.error().error().code())
              .setErrorMessage(
                  result.error().isFailure() ? result.error().messageOrDefault() : null);
      for (StandardAcl acl : result.deleted()) {
        out.matchingAcls().add(AclApi.deleted(acl.toBinding()));
      }
      response.filterResults().add(out);
    }
    return response;
  }
}
