package io.brook.coordinator.group.classic;

import org.apache.kafka.common.protocol.Errors;

/** The answer to a SyncGroup: the member's assignment in the current generation. */
public record SyncResult(
    Errors error, String protocolType, String protocolName, byte[] assignment) {

  public static SyncResult error(Errors error) {
    return new SyncResult(error, null, null, new byte[0]);
  }
}
