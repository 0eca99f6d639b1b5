package io.brook.broker.admin;

import io.brook.metadata.controller.ProducerIdBlock;
import java.util.function.Supplier;

/**
 * Hands out producer ids from blocks the controller allocates, so ids stay unique across brokers
 * and restarts: a block is recorded in the metadata log before any id in it is used.
 */
public final class ProducerIdManager {
  private final Supplier<ProducerIdBlock> blockSource;
  private ProducerIdBlock block;
  private long next;

  /**
   * @param blockSource asks the controller for a fresh block (may block briefly on the quorum)
   */
  public ProducerIdManager(Supplier<ProducerIdBlock> blockSource) {
    this.blockSource = blockSource;
  }

  public synchronized long nextProducerId() {
    if (block == null || next >= block.firstProducerId() + block.size()) {
      block = blockSource.get();
      next = block.firstProducerId();
    }
    return next++;
  }
}
