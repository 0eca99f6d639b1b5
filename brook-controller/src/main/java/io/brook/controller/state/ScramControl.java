package io.brook.controller.state;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RemoveUserScramCredentialRecord;
import io.brook.metadata.record.UserScramCredentialRecord;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The controller side of SCRAM credentials (KIP-554): validates AlterUserScramCredentials as
 * Kafka's controller does and turns it into {@link UserScramCredentialRecord}s and {@link
 * RemoveUserScramCredentialRecord}s. The client sends the salted password (PBKDF2 is done by the
 * client); the stored and server keys derived here cost two HMACs and a hash.
 */
public final class ScramControl {
  private ScramControl() {}

  /**
   * AlterUserScramCredentials on {@code image}: one result per user named, records for the rest.
   */
  public static ControllerResult<AlterUserScramCredentialsResponseData> alter(
      MetadataImage image, AlterUserScramCredentialsRequestData request) {
    // A user named twice for the same mechanism, or in both lists, is refused entirely (Kafka).
    Map<String, Integer> mentions = new LinkedHashMap<>();
    Set<String> duplicated = new HashSet<>();
    Set<String> seen = new HashSet<>();
    for (ScramCredentialDeletion d : request.deletions()) {
      mentions.merge(d.name(), 1, Integer::sum);
      if (!seen.add(d.name() + "/" + d.mechanism())) {
        duplicated.add(d.name());
      }
    }
    for (ScramCredentialUpsertion u : request.upsertions()) {
      mentions.merge(u.name(), 1, Integer::sum);
      if (!seen.add(u.name() + "/" + u.mechanism())) {
        duplicated.add(u.name());
      }
    }
    Map<String, AlterUserScramCredentialsResult> results = new LinkedHashMap<>();
    for (String name : mentions.keySet()) {
      AlterUserScramCredentialsResult result = new AlterUserScramCredentialsResult().setUser(name);
      if (name.isEmpty()) {
        result
            .setErrorCode(Errors.UNACCEPTABLE_CREDENTIAL.code())
            .setErrorMessage("Username must not be empty");
      } else if (duplicated.contains(name)) {
        result
            .setErrorCode(Errors.DUPLICATE_RESOURCE.code())
            .setErrorMessage("A user credential cannot be altered twice in the same request");
      }
      results.put(name, result);
    }
    List<MetadataRecord> records = new ArrayList<>();
    for (ScramCredentialDeletion d : request.deletions()) {
      AlterUserScramCredentialsResult result = results.get(d.name());
      if (result.errorCode() != Errors.NONE.code()) {
        continue;
      }
      ScramMechanism mechanism = mechanism(d.mechanism());
      if (mechanism == null) {
        result
            .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
            .setErrorMessage("Unknown SCRAM mechanism");
      } else if (image.scramCredential(d.name(), d.mechanism()).isEmpty()) {
        result
            .setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
            .setErrorMessage("Attempt to delete a user credential that does not exist");
      } else {
        records.add(new RemoveUserScramCredentialRecord(d.name(), d.mechanism()));
      }
    }
    for (ScramCredentialUpsertion u : request.upsertions()) {
      AlterUserScramCredentialsResult result = results.get(u.name());
      if (result.errorCode() != Errors.NONE.code()) {
        continue;
      }
      ScramMechanism mechanism = mechanism(u.mechanism());
      if (mechanism == null) {
        result
            .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
            .setErrorMessage("Unknown SCRAM mechanism");
      } else if (u.iterations() < mechanism.minIterations()) {
        result
            .setErrorCode(Errors.UNACCEPTABLE_CREDENTIAL.code())
            .setErrorMessage("Too few iterations");
      } else if (u.iterations() > mechanism.maxIterations()) {
        result
            .setErrorCode(Errors.UNACCEPTABLE_CREDENTIAL.code())
            .setErrorMessage("Too many iterations");
      } else {
        records.add(credential(u.name(), mechanism, u.salt(), u.saltedPassword(), u.iterations()));
      }
    }
    // Records of a user with any failure are not written: drop them.
    records.removeIf(r -> results.get(name(r)).errorCode() != Errors.NONE.code());
    return ControllerResult.of(
        records,
        new AlterUserScramCredentialsResponseData().setResults(new ArrayList<>(results.values())));
  }

  /**
   * The record of a credential derived from a plain password, as {@code kafka-storage format
   * --add-scram} does: PBKDF2 with {@code iterations} rounds, so call it off any event loop.
   */
  public static UserScramCredentialRecord fromPassword(
      String name, ScramMechanism mechanism, String password, int iterations) {
    try {
      ScramFormatter formatter = new ScramFormatter(mechanism);
      byte[] salt = formatter.secureRandomBytes();
      byte[] salted = formatter.saltedPassword(password, salt, iterations);
      return credential(name, mechanism, salt, salted, iterations);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot derive a " + mechanism.mechanismName() + " key", e);
    }
  }

  /**
   * Adds {@code bootstrap} credentials to the result that first records the cluster id, so they are
   * the first metadata records with it; a result without records (the id was recorded before) is
   * returned unchanged.
   */
  public static <T> ControllerResult<T> withBootstrap(
      ControllerResult<T> initialization, List<UserScramCredentialRecord> bootstrap) {
    if (initialization.records().isEmpty() || bootstrap.isEmpty()) {
      return initialization;
    }
    List<MetadataRecord> records = new ArrayList<>(initialization.records());
    records.addAll(bootstrap);
    return ControllerResult.of(records, initialization.response());
  }

  private static UserScramCredentialRecord credential(
      String name, ScramMechanism mechanism, byte[] salt, byte[] saltedPassword, int iterations) {
    try {
      ScramFormatter formatter = new ScramFormatter(mechanism);
      byte[] clientKey = formatter.clientKey(saltedPassword);
      return new UserScramCredentialRecord(
          name,
          mechanism.type(),
          salt,
          formatter.storedKey(clientKey),
          formatter.serverKey(saltedPassword),
          iterations);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot derive a " + mechanism.mechanismName() + " key", e);
    }
  }

  private static ScramMechanism mechanism(byte type) {
    for (ScramMechanism m : ScramMechanism.values()) {
      if (m.type() == type) {
        return m;
      }
    }
    return null;
  }

  private static String name(MetadataRecord r) {
    return r instanceof UserScramCredentialRecord u
        ? u.name()
        : ((RemoveUserScramCredentialRecord) r).name();
  }
}
