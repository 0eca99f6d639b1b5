package io.brook.metadata.quorum;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.journal.MetadataJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-node quorum: this node is the only voter and the active controller, and its records
 * are made durable by the local {@link MetadataJournal}.
 *
 * <p>{@link #submit} holds this object's monitor while it runs the operation, applies the records
 * to a new image (before writing, so records that cannot apply never reach the disk), appends them
 * to the journal with an fsync, publishes the image through a volatile field and notifies the
 * listeners. Readers never lock.
 *
 * <p>When the journal has grown beyond {@code compactionBytes} after an append, it is compacted
 * into a snapshot of the image.
 */
public final class LocalMetadataQuorum implements MetadataQuorum {
  private static final Logger log = LoggerFactory.getLogger(LocalMetadataQuorum.class);

  /** Compact once the journal passes 64 MiB: a large cluster's image is a few MiB of JSON. */
  public static final long DEFAULT_COMPACTION_BYTES = 64L * 1024 * 1024;

  private final MetadataJournal journal;
  private final long compactionBytes;
  private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();
  private volatile MetadataImage image;
  private boolean closed;

  /**
   * @param journal an open journal; its replayed image becomes the first image. Owned (closed) by
   *     this quorum from now on.
   * @param compactionBytes journal size that triggers compaction after an append
   */
  public LocalMetadataQuorum(MetadataJournal journal, long compactionBytes) {
    this.journal = Objects.requireNonNull(journal, "journal");
    if (compactionBytes <= 0) {
      throw new IllegalArgumentException("compactionBytes must be positive");
    }
    this.compactionBytes = compactionBytes;
    this.image = journal.loaded().image();
  }

  /** Opens (or creates) the journal in {@code metadataDir} and replays it. */
  public static LocalMetadataQuorum open(Path metadataDir) throws IOException {
    return new LocalMetadataQuorum(MetadataJournal.open(metadataDir), DEFAULT_COMPACTION_BYTES);
  }

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
    long lastOffset = journal.nextOffset() + result.records().size() - 1;
    MetadataImage next = current.apply(result.records(), lastOffset);
    try {
      long written = journal.append(result.records());
      if (written != lastOffset) {
        throw new IllegalStateException(
            "journal wrote up to offset " + written + ", expected " + lastOffset);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metadata records", e);
    }
    image = next;
    for (Consumer<MetadataImage> listener : listeners) {
      notify(listener, next);
    }
    maybeCompact(next);
    return result.response();
  }

  /** Compacts the journal now into a snapshot of the current image. */
  public synchronized void compact() throws IOException {
    if (closed) {
      throw new IllegalStateException("the metadata quorum is closed");
    }
    journal.compact(image);
  }

  private void maybeCompact(MetadataImage current) {
    if (journal.sizeInBytes() <= compactionBytes) {
      return;
    }
    try {
      journal.compact(current);
    } catch (IOException e) {
      // The records are durable in the uncompacted journal; compaction is retried next time.
      log.warn("Metadata journal compaction failed offset={}", current.offset(), e);
    }
  }

  @Override
  public synchronized void addListener(Consumer<MetadataImage> listener) {
    Objects.requireNonNull(listener, "listener");
    notify(listener, image);
    listeners.add(listener);
  }

  /** A listener that throws is logged and stays registered: the records are already durable. */
  private static void notify(Consumer<MetadataImage> listener, MetadataImage image) {
    try {
      listener.accept(image);
    } catch (RuntimeException e) {
      log.error("Metadata listener failed listener={} offset={}", listener, image.offset(), e);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      journal.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the metadata journal", e);
    }
  }
}
