package io.brook.protocol.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestMemoryPoolTest {
  private long nanos;
  private final RequestMemoryPool pool = new RequestMemoryPool(100, () -> nanos);
  private final List<String> granted = new ArrayList<>();

  @Test
  void reservesWhileItFitsAndReleases() {
    assertThat(pool.reserveOrWait(60, waiter("a"))).isTrue();
    assertThat(pool.reserveOrWait(40, waiter("b"))).isTrue();
    assertThat(pool.used()).isEqualTo(100);
    assertThat(pool.available()).isZero();

    pool.release(60);

    assertThat(pool.used()).isEqualTo(40);
    assertThat(granted).isEmpty();
  }

  @Test
  void tryReserveTakesWhatFitsAndNeverQueues() {
    assertThat(pool.tryReserve(70)).isTrue();
    assertThat(pool.tryReserve(40)).isFalse();
    assertThat(pool.waiters()).isZero();
    assertThat(pool.used()).isEqualTo(70);
  }

  @Test
  void aWaiterIsGrantedItsBytesWhenEnoughIsReleased() {
    // Given
    pool.reserveOrWait(90, waiter("holder"));

    // When
    assertThat(pool.reserveOrWait(50, waiter("w"))).isFalse();
    pool.release(20);

    // Then: 30 free is not enough yet
    assertThat(granted).isEmpty();
    pool.release(30);
    assertThat(granted).containsExactly("w");
    assertThat(pool.used()).isEqualTo(40 + 50);
  }

  @Test
  void grantsInArrivalOrderSoALargeWaiterIsNotOvertaken() {
    // Given: a large request waits
    pool.reserveOrWait(80, waiter("holder"));
    assertThat(pool.reserveOrWait(60, waiter("large"))).isFalse();

    // When: a small one that would fit arrives
    boolean small = pool.reserveOrWait(10, waiter("small"));

    // Then: it queues behind, and both are granted in order once memory is back
    assertThat(small).isFalse();
    pool.release(80);
    assertThat(granted).containsExactly("large", "small");
    assertThat(pool.used()).isEqualTo(70);
  }

  @Test
  void aSmallRequestThatFitsOvertakesALargeWaiter() {
    // Given: a large request waits for memory held elsewhere
    pool.reserveOrWait(80, waiter("holder"));
    assertThat(pool.reserveOrWait(60, waiter("large"))).isFalse();

    // When: a small one (at most 1/32 of the capacity) arrives
    boolean small = pool.reserveOrWait(3, waiter("small"));

    // Then
    assertThat(small).isTrue();
    assertThat(pool.used()).isEqualTo(83);
  }

  @Test
  void aSmallWaiterBehindALargeOneIsGrantedWhenItFits() {
    // Given: everything held, a large and then a small request waiting
    pool.reserveOrWait(100, waiter("holder"));
    pool.reserveOrWait(60, waiter("large"));
    pool.reserveOrWait(3, waiter("small"));

    // When: too little comes back for the large one
    pool.release(10);

    // Then
    assertThat(granted).containsExactly("small");
    assertThat(pool.waiters()).isEqualTo(1);
  }

  @Test
  void smallRequestsStopOvertakingAnOldWaiterWhenTheyAreWhatKeepsItOut() {
    // Given: small requests (at most 3 bytes each) hold 42, a large one 20; 60 waits
    for (int i = 0; i < 14; i++) {
      pool.reserveOrWait(3, waiter("small-holder"));
    }
    pool.reserveOrWait(20, waiter("large-holder"));
    assertThat(pool.reserveOrWait(60, waiter("large"))).isFalse();
    assertThat(pool.reserveOrWait(3, waiter("young"))).as("overtakes at first").isTrue();
    nanos += RequestMemoryPool.MAX_OVERTAKEN_NANOS;

    // When: the waiter is old, and would fit but for the small ones
    boolean small = pool.reserveOrWait(3, waiter("late"));

    // Then: the small one waits, and the large one gets in as the small ones drain
    assertThat(small).isFalse();
    for (int i = 0; i < 9; i++) {
      pool.release(3);
    }
    assertThat(granted).containsExactly("large");
    pool.release(3);
    assertThat(granted).containsExactly("large", "late");
  }

  @Test
  void smallRequestsKeepOvertakingAnOldWaiterThatLargeRequestsKeepOut() {
    // Given: a large holder (a slow sender, say) keeps a large waiter out for long
    pool.reserveOrWait(80, waiter("slow-sender"));
    pool.reserveOrWait(60, waiter("large"));
    nanos += 10 * RequestMemoryPool.MAX_OVERTAKEN_NANOS;

    // When
    boolean small = pool.reserveOrWait(3, waiter("small"));

    // Then: holding it up would not let the large one in any sooner
    assertThat(small).isTrue();
    pool.release(3);
    pool.release(80);
    assertThat(granted).containsExactly("large");
  }

  @Test
  void aCancelledWaiterHoldsNothingAndUnblocksThoseBehindIt() {
    // Given
    pool.reserveOrWait(50, waiter("holder"));
    RequestMemoryPool.Waiter large = waiter("large");
    pool.reserveOrWait(90, large);
    pool.reserveOrWait(20, waiter("small"));

    // When
    assertThat(pool.cancel(large)).isTrue();

    // Then
    assertThat(granted).containsExactly("small");
    assertThat(pool.used()).isEqualTo(70);
    assertThat(pool.waiters()).isZero();
    assertThat(pool.cancel(large)).as("no longer waiting").isFalse();
  }

  @Test
  void refusesWhatCanNeverFitAndReleasingMoreThanReserved() {
    assertThatThrownBy(() -> pool.reserveOrWait(101, waiter("x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pool.reserveOrWait(0, waiter("x")))
        .isInstanceOf(IllegalArgumentException.class);
    pool.reserveOrWait(10, waiter("x"));
    assertThatThrownBy(() -> pool.release(11)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theDefaultIsAQuarterOfTheJvmsMemory() {
    long capacity = RequestMemoryPool.defaultCapacity();

    assertThat(capacity).isPositive().isLessThanOrEqualTo(Runtime.getRuntime().maxMemory() / 4);
  }

  private RequestMemoryPool.Waiter waiter(String name) {
    return () -> granted.add(name);
  }
}
