/**
 * KIP-853's voter changes as Kafka's APIs: AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter,
 * decided by the quorum's leader ({@code io.brook.quorum}), which changes the Ratis configuration.
 */
package io.brook.controller.voters;
