package io.brook.controller.quorum;

import io.brook.metadata.image.MetadataImage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands new images to the node's listeners (the replica manager, which creates and deletes logs) on
 * its own thread, so the Raft apply thread never waits for disk work: a topic's logs are created
 * after its records are committed, not before the next entry can be applied.
 *
 * <p>Latest wins: a listener that falls behind skips straight to the newest image (images are whole
 * states, and listeners bring themselves in line with the image they are given), so the queue holds
 * at most one image and catching up costs one pass, not one per entry. Listeners see images in
 * offset order, never an older one after a newer one.
 */
final class ImagePublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ImagePublisher.class);

  private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<MetadataImage> pending = new AtomicReference<>();
  private final ExecutorService thread;
  private volatile MetadataImage published = MetadataImage.EMPTY;

  ImagePublisher(String name) {
    this.thread =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread t = new Thread(runnable, name);
              t.setDaemon(true);
              return t;
            });
  }

  /** Queues {@code image} for the listeners, replacing any image not yet handed out. */
  void publish(MetadataImage image) {
    if (pending.getAndSet(image) == null) {
      try {
        thread.execute(this::drain);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // Closed: the node is stopping.
      }
    }
  }

  private void drain() {
    MetadataImage image = pending.getAndSet(null);
    if (image == null || image.offset() < published.offset()) {
      return;
    }
    for (Consumer<MetadataImage> listener : listeners) {
      try {
        listener.accept(image);
      } catch (RuntimeException e) {
        log.error("Metadata listener failed listener={} offset={}", listener, image.offset(), e);
      }
    }
    published = image;
  }

  /** Adds a listener; it gets {@code current} first, on the publisher thread, before returning. */
  void addListener(Consumer<MetadataImage> listener, MetadataImage current) {
    try {
      thread
          .submit(
              () -> {
                MetadataImage first = current.offset() >= published.offset() ? current : published;
                listener.accept(first);
                listeners.add(listener);
              })
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while adding a metadata listener", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("metadata listener failed on the first image", e.getCause());
    }
  }

  /** The offset of the newest image every listener has been given. */
  long publishedOffset() {
    return published.offset();
  }

  @Override
  public void close() {
    thread.shutdown();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
