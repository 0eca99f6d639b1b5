package io.brook.simulation;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.MetadataQuorum;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The controller quorum of the simulation: one in-memory voter on the simulation's single thread.
 * An operation's records get the next offsets and are applied at once with the real {@link
 * MetadataImage#apply} (the {@code ImageBuilder}); listeners then see the new image. What is
 * simulated is only agreement and durability, which a single voter has trivially.
 */
final class SimulatedQuorum implements MetadataQuorum {
  private final List<Consumer<MetadataImage>> listeners = new ArrayList<>();
  private MetadataImage image = MetadataImage.EMPTY;

  @Override
  public MetadataImage image() {
    return image;
  }

  @Override
  public <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
    ControllerResult<T> result = op.apply(image);
    if (result.records().isEmpty()) {
      return result.response();
    }
    image = image.apply(result.records(), image.offset() + result.records().size());
    for (Consumer<MetadataImage> listener : List.copyOf(listeners)) {
      listener.accept(image);
    }
    return result.response();
  }

  @Override
  public void addListener(Consumer<MetadataImage> listener) {
    listener.accept(image);
    listeners.add(listener);
  }

  @Override
  public void close() {
    listeners.clear();
  }
}
