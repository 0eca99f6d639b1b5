package io.brook.broker.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class LocalMetadataBarrierTest {

  private static MetadataImage at(long offset) {
    return MetadataImage.EMPTY.apply(List.of(), offset);
  }

  @Test
  void aResponseWaitsUntilThisNodeAppliedTheControllersOffset() {
    LocalMetadataBarrier barrier = new LocalMetadataBarrier();
    barrier.accept(at(4));

    CompletableFuture<Void> atSix = barrier.applied(6);
    CompletableFuture<Void> atEight = barrier.applied(8);
    assertThat(atSix).isNotDone();

    barrier.accept(at(7));
    assertThat(atSix).isCompleted();
    assertThat(atEight).isNotDone();

    barrier.accept(at(8));
    assertThat(atEight).isCompleted();
  }

  @Test
  void whatIsAlreadyAppliedAnswersAtOnce() {
    LocalMetadataBarrier barrier = new LocalMetadataBarrier();
    barrier.accept(at(10));
    assertThat(barrier.applied(10)).isCompleted();
    assertThat(barrier.applied(3)).isCompleted();
  }

  @Test
  void beyondItsBoundResponsesGoOutWithoutWaiting() {
    LocalMetadataBarrier barrier = new LocalMetadataBarrier();
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    for (int i = 0; i < LocalMetadataBarrier.MAX_WAITERS; i++) {
      waiting.add(barrier.applied(100));
    }
    assertThat(waiting).noneMatch(CompletableFuture::isDone);

    assertThat(barrier.applied(100)).isCompleted();

    barrier.accept(at(100));
    assertThat(waiting).allMatch(CompletableFuture::isDone);
  }
}
