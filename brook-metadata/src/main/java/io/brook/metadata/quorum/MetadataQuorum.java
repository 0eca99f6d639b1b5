package io.brook.metadata.quorum;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The seam between the controller's logic and the place its records are agreed on and stored: on a
 * node, the Raft quorum of brook-controller (one voter or several).
 *
 * <p>Operations run one at a time against the latest image; their records become durable, then
 * applied, then visible, then the response is returned.
 */
public interface MetadataQuorum extends AutoCloseable {
  /** The latest published image. Cheap; safe from any thread. */
  MetadataImage image();

  /**
   * Runs a controller operation on the latest image, makes its records durable, applies and
   * publishes them, notifies listeners and returns the response. Operations are serialized.
   *
   * @param op reads the image it is given and returns records plus response; must not have side
   *     effects, as it may be run again (later, by a new active controller)
   * @return the operation's response, once its records are durable and published
   * @throws java.io.UncheckedIOException if the records could not be made durable; nothing was
   *     applied
   * @throws IllegalStateException if the records do not apply to the image; nothing was written
   */
  <T> T submit(Function<MetadataImage, ControllerResult<T>> op);

  /**
   * As {@link #submit}, without blocking the caller: the stage completes once the records are
   * durable and published, or exceptionally with what {@link #submit} would throw. Callers on a
   * network event loop must use this one. The default runs {@link #submit} on the caller's thread,
   * which suits a quorum that never waits for another node.
   */
  default <T> CompletableFuture<T> submitAsync(Function<MetadataImage, ControllerResult<T>> op) {
    try {
      return CompletableFuture.completedFuture(submit(op));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Whether this node is the active controller now, so {@link #submit} will run here rather than
   * fail with {@code NOT_CONTROLLER}. Only a hint: leadership can move at any moment.
   */
  default boolean isActiveController() {
    return true;
  }

  /**
   * Calls {@code listener} with the current image now and with every image published after it, in
   * order, on the thread that published it. Listeners must be quick and must not call {@link
   * #submit}; one that throws is logged and stays registered.
   */
  void addListener(Consumer<MetadataImage> listener);

  /**
   * Called when this node starts to stop, before it stops serving the Kafka protocol: this voter
   * stands for election no more, then, if it is the active controller, hands its role to another
   * voter (in that order, so it cannot win the role back while that voter is being elected).
   * Otherwise the node would stay the controller while its listeners close and its logs are
   * flushed, and every broker's heartbeats and ISR changes would fail until the quorum itself
   * closed, last. The quorum goes on replicating until {@link #close}. Nothing to do for a quorum
   * of one.
   */
  default void stepDown() {}

  /**
   * Tells {@code listener} (on the thread that found it) when this node's journal could not be
   * written: the quorum can then neither lead nor follow, and the node must stop. A quorum without
   * a journal of its own never calls it.
   */
  default void onJournalFailure(Consumer<Throwable> listener) {}

  /**
   * Stops this node's Raft server at once because the disk that holds its journal failed (full, or
   * failing writes), before the node's controlled shutdown: unlike {@link #stepDown} and {@link
   * #close} it hands no leadership over and writes no snapshot. Both would make the Raft server
   * write to that disk, and the file that holds a voter's term and vote is replaced even by a write
   * that failed (Ratis' atomic file stream renames its temporary file into place on close whether
   * or not its writes succeeded), which leaves a voter that cannot start again. The other voters
   * elect a leader after their election timeout instead, and this node's calls to the controller
   * (its controlled shutdown) go on reaching that leader until {@link #close}. Nothing to do for a
   * quorum without a Raft server of its own.
   */
  default void stopServerAfterDiskFailure() {}

  /** Stops the quorum; {@link #submit} then fails. */
  @Override
  void close();
}
