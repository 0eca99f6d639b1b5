package io.brook.metadata.record;

/**
 * A user's SCRAM credential for one mechanism is deleted, as Kafka's {@code
 * RemoveUserScramCredentialRecord}.
 *
 * @param name the user name
 * @param mechanism 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
 */
public record RemoveUserScramCredentialRecord(String name, byte mechanism)
    implements MetadataRecord {}
