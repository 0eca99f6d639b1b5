package io.brook.broker.api;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.metadata.authorizer.AclIndex;
import io.brook.metadata.authorizer.StandardAcl;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeAclsResponse;

/**
 * DescribeAcls: the ACLs a filter matches, answered from this node's metadata image (every node
 * holds all ACLs). Needs DESCRIBE on the cluster (checked in front of the handler); without an
 * authorizer it is SECURITY_DISABLED, as in Kafka.
 */
public final class DescribeAclsHandler extends AclApi {
  private final Supplier<AclIndex> acls;

  public DescribeAclsHandler(RequestAuthorizer authorizer, Supplier<AclIndex> acls) {
    super(ApiKeys.DESCRIBE_ACLS, authorizer);
    this.acls = acls;
  }

  @Override
  protected ApiMessage handleAcls(ApiMessage message) {
    DescribeAclsRequestData request = (DescribeAclsRequestData) message;
    AclBindingFilter filter =
        AclApi.filter(
            request.resourceTypeFilter(),
            request.resourceNameFilter(),
            request.patternTypeFilter(),
            request.principalFilter(),
            request.hostFilter(),
            request.operation(),
            request.permissionType());
    DescribeAclsResponseData response = new DescribeAclsResponseData();
    if (filter.isUnknown()) {
      return response
          .setErrorCode(Errors.INVALID_REQUEST.code())
          .setErrorMessage("The filter has an unknown element.");
    }
    List<AclBinding> found = new ArrayList<>();
    for (StandardAcl acl : acls.get().matching(filter)) {
      found.add(acl.toBinding());
    }
    return response.setResources(DescribeAclsResponse.aclsResources(found));
  }
}
