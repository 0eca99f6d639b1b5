package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.UserScramCredentialRecord;
import java.util.List;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;

/** AlterUserScramCredentials decided on an image, and the image after its records. */
class ScramControlTest {
  private static ScramCredentialUpsertion upsert(String name, byte mechanism, int iterations) {
    return new ScramCredentialUpsertion()
        .setName(name)
        .setMechanism(mechanism)
        .setIterations(iterations)
        .setSalt(new byte[] {1, 2, 3})
        .setSaltedPassword(new byte[32]);
  }

  private static MetadataImage applied(MetadataImage image, ControllerResult<?> result) {
    return image.apply(result.records(), image.offset() + result.records().size());
  }

  @Test
  void upsertsThenDeletesACredential() {
    ControllerResult<AlterUserScramCredentialsResponseData> added =
        ScramControl.alter(
            MetadataImage.EMPTY,
            new AlterUserScramCredentialsRequestData()
                .setUpsertions(List.of(upsert("bob", (byte) 1, 4096))));
    MetadataImage withBob = applied(MetadataImage.EMPTY, added);

    assertThat(added.response().results().get(0).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(withBob.scramCredential("bob", (byte) 1)).isPresent();
    assertThat(withBob.scramCredential("bob", (byte) 2)).isEmpty();
    // A snapshot keeps it.
    assertThat(MetadataImage.EMPTY.apply(withBob.toRecords(), withBob.offset())).isEqualTo(withBob);

    ControllerResult<AlterUserScramCredentialsResponseData> removed =
        ScramControl.alter(
            withBob,
            new AlterUserScramCredentialsRequestData()
                .setDeletions(
                    List.of(new ScramCredentialDeletion().setName("bob").setMechanism((byte) 1))));
    assertThat(applied(withBob, removed).scramCredentials()).isEmpty();
  }

  @Test
  void refusesTooFewIterationsUnknownDeletionsAndDuplicates() {
    AlterUserScramCredentialsRequestData request =
        new AlterUserScramCredentialsRequestData()
            .setUpsertions(
                List.of(
                    upsert("few", (byte) 1, 100),
                    upsert("twice", (byte) 2, 4096),
                    upsert("twice", (byte) 2, 8192)))
            .setDeletions(
                List.of(new ScramCredentialDeletion().setName("nobody").setMechanism((byte) 1)));

    ControllerResult<AlterUserScramCredentialsResponseData> result =
        ScramControl.alter(MetadataImage.EMPTY, request);

    assertThat(result.records()).isEmpty();
    assertThat(result.response().results())
        .extracting(r -> r.user() + "=" + Errors.forCode(r.errorCode()))
        .containsExactlyInAnyOrder(
            "few=UNACCEPTABLE_CREDENTIAL", "twice=DUPLICATE_RESOURCE", "nobody=RESOURCE_NOT_FOUND");
  }

  @Test
  void bootstrapCredentialsFollowTheFirstClusterIdRecordOnly() {
    UserScramCredentialRecord admin =
        ScramControl.fromPassword("admin", ScramMechanism.SCRAM_SHA_512, "secret", 4096);
    ControllerResult<String> first =
        ScramControl.withBootstrap(
            ControllerResult.of(List.of(new io.brook.metadata.record.ClusterIdRecord("c1")), "c1"),
            List.of(admin));
    ControllerResult<String> later =
        ScramControl.withBootstrap(ControllerResult.of("c1"), List.of(admin));

    assertThat(first.records()).hasSize(2).last().isEqualTo(admin);
    assertThat(later.records()).isEmpty();
  }
}
