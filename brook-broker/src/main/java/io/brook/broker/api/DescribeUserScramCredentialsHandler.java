package io.brook.broker.api;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.UserScramCredentialRecord;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeUserScramCredentials (KIP-554) from this broker's metadata image: each user's mechanisms
 * and iteration counts, never keys. No users named means every user with a credential.
 */
public final class DescribeUserScramCredentialsHandler extends KafkaApi {
  private final Supplier<MetadataImage> image;

  public DescribeUserScramCredentialsHandler(Supplier<MetadataImage> image) {
    super(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS);
    this.image = image;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    DescribeUserScramCredentialsRequestData describe =
        (DescribeUserScramCredentialsRequestData) request;
    Map<String, Map<Byte, UserScramCredentialRecord>> all = image.get().scramCredentials();
    List<String> names = new ArrayList<>();
    Set<String> duplicates = new HashSet<>();
    if (describe.users() == null || describe.users().isEmpty()) {
      names.addAll(all.keySet());
    } else {
      Set<String> seen = new HashSet<>();
      for (UserName user : describe.users()) {
        if (!seen.add(user.name())) {
          duplicates.add(user.name());
        } else {
          names.add(user.name());
        }
      }
    }
    DescribeUserScramCredentialsResponseData response =
        new DescribeUserScramCredentialsResponseData();
    for (String name : names) {
      DescribeUserScramCredentialsResult result =
          new DescribeUserScramCredentialsResult().setUser(name);
      Map<Byte, UserScramCredentialRecord> credentials = all.get(name);
      if (duplicates.contains(name)) {
        result
            .setErrorCode(Errors.DUPLICATE_RESOURCE.code())
            .setErrorMessage("Cannot describe SCRAM credentials for the same user twice");
      } else if (credentials == null) {
        result
            .setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
            .setErrorMessage("Attempt to describe a user credential that does not exist: " + name);
      } else {
        for (UserScramCredentialRecord c : credentials.values()) {
          result
              .credentialInfos()
              .add(new CredentialInfo().setMechanism(c.mechanism()).setIterations(c.iterations()));
        }
      }
      response.results().add(result);
    }
    return CompletableFuture.completedFuture(response);
  }
}
