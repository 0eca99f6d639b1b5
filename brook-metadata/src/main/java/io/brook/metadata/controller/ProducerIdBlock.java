package io.brook.metadata.controller;

/**
 * Producer ids {@code firstProducerId} to {@code firstProducerId + size - 1}, handed to one broker
 * for idempotent and transactional producers. Blocks never overlap and only grow, across restarts.
 *
 * @param firstProducerId the first id of the block
 * @param size how many ids the block holds
 */
public record ProducerIdBlock(long firstProducerId, int size) {
  /** The last id of the block. */
  public long lastProducerId() {
    return firstProducerId + size - 1;
  }

  /** The first id after the block. */
  public long nextBlockFirstId() {
    return firstProducerId + size;
  }
}
