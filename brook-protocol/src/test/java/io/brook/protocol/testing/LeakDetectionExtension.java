package io.brook.protocol.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test if Netty reports a leaked buffer. Registered for every test through JUnit's
 * extension auto-detection ({@code junit-platform.properties}); the surefire/failsafe {@code
 * argLine} sets the paranoid level, so every buffer is tracked.
 *
 * <p>Netty reports a leak when the leaked buffer has been garbage collected and another buffer is
 * allocated. After each test this fails on leaks reported so far; after each test class it also
 * collects garbage and allocates a few buffers to flush reports out (once per class: a collection
 * per test would make the codec tests, hundreds of cases, take many seconds). A leak whose buffer
 * is still reachable then is reported later.
 */
public final class LeakDetectionExtension implements AfterEachCallback, AfterAllCallback {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static volatile boolean byteBufDetectorInstalled;

  static {
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    assertNoLeaks();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    collectAndProbe();
    assertThat(byteBufDetectorInstalled)
        .as("leak recorder must be installed before Netty creates its ByteBuf leak detector")
        .isTrue();
    assertNoLeaks();
  }

  /**
   * Collects garbage, then allocates buffers so Netty's detector reports what was collected
   * unreleased.
   */
  static void collectAndProbe() {
    System.gc();
    for (ByteBufAllocator allocator :
        List.of(PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT)) {
      for (int i = 0; i < 4; i++) {
        ByteBuf probe = allocator.directBuffer(1);
        probe.release();
      }
    }
  }

  /** Leaks reported and not yet asserted on; clears them. */
  static List<String> drainLeaks() {
    List<String> leaks = new ArrayList<>(LEAKS);
    LEAKS.removeAll(leaks);
    return leaks;
  }

  private static void assertNoLeaks() {
    List<String> leaks = drainLeaks();
    assertThat(leaks).as("Netty resource leaks detected").isEmpty();
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Deprecated
    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return newResourceLeakDetector(resource, samplingInterval);
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval) {
      if (ByteBuf.class.isAssignableFrom(resource)) {
        byteBufDetectorInstalled = true;
      }
      ResourceLeakDetector<T> detector = new ResourceLeakDetector<>(resource, samplingInterval);
      detector.setLeakListener((type, records) -> LEAKS.add("LEAK of " + type + ":" + records));
      return detector;
    }
  }
}
