package io.brook.metadata.quorum;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MetadataQuorum} of one voter that keeps its records in memory: for the tests of modules
 * that drive the controller and the broker without running Ratis (brook-broker, brook-coordinator,
 * this module). Nodes run {@code RaftMetadataQuorum} (brook-controller).
 *
 * <p>{@link #submit} holds this object's monitor while it runs the operation, applies its records
 * to a new image, publishes it through a volatile field and notifies the listeners on the caller's
 * thread. Readers never lock.
 */
public final class InMemoryMetadataQuorum implements MetadataQuorum {
  private static final Logger log = LoggerFactory.getLogger(InMemoryMetadataQuorum.class);

  private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();
  private volatile MetadataImage image = MetadataImage.EMPTY;
  private boolean closed;

  @Override
  public MetadataImage image() {
    return image;
  }

  @Override
  public synchronized <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
    if (closed) {
      throw new IllegalStateException("the metadata quorum is closed");
    }
    MetadataImage current = image;
    ControllerResult<T> result = op.apply(current);
    if (result.records().isEmpty()) {
      return result.response();
    }
    MetadataImage next =
        current.apply(result.records(), current.offset() + result.records().size());
    image = next;
    for (Consumer<MetadataImage> listener : listeners) {
      notify(listener, next);
    }
    return result.response();
  }

  @Override
  public synchronized void addListener(Consumer<MetadataImage> listener) {
    Objects.requireNonNull(listener, "listener");
    notify(listener, image);
    listeners.add(listener);
  }

  /** A listener that throws is logged and stays registered, as on a real quorum. */
  private static void notify(Consumer<MetadataImage> listener, MetadataImage image) {
    try {
      listener.accept(image);
    } catch (RuntimeException e) {
      log.error("Metadata listener failed listener={} offset={}", listener, image.offset(), e);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
