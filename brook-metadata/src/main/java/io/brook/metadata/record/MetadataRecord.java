package io.brook.metadata.record;

/**
 * One change to the cluster metadata. Records are immutable values; the image applies them in log
 * order, and a record that cannot apply (a partition of an unknown topic, a stale broker epoch) is
 * refused by {@link io.brook.metadata.image.MetadataImage#apply} with an {@link
 * IllegalStateException}.
 */
public sealed interface MetadataRecord
    permits RegisterBrokerRecord,
        UnregisterBrokerRecord,
        FenceBrokerRecord,
        UnfenceBrokerRecord,
        TopicRecord,
        RemoveTopicRecord,
        PartitionRecord,
        PartitionChangeRecord,
        ConfigRecord,
        ProducerIdsRecord,
        ClusterIdRecord,
        FeatureLevelRecord,
        UserScramCredentialRecord,
        RemoveUserScramCredentialRecord,
        AccessControlEntryRecord,
        RemoveAccessControlEntryRecord,
        ClientQuotaRecord {}
