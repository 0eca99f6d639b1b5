package io.brook.storage.index;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unmaps a file mapping at once instead of when the garbage collector finds it unreachable. Every
 * mapping counts toward {@code vm.max_map_count} (65,530 by default) until it is unmapped, and a
 * broker that opens and closes tens of thousands of indexes between collections would otherwise run
 * into that limit with the mappings already dropped.
 *
 * <p>Uses {@code sun.misc.Unsafe#invokeCleaner} (module {@code jdk.unsupported}), the only way the
 * JDK offers; where it is missing, mappings are left to the collector as before. Touching a buffer
 * after it was unmapped crashes the JVM, so callers must guarantee nobody still reads it: the
 * segment file pool unmaps only files with no pin.
 */
final class Unmapper {
  private static final Logger LOG = LoggerFactory.getLogger(Unmapper.class);
  private static final Object UNSAFE;
  private static final Method INVOKE_CLEANER;

  static {
    Object unsafe = null;
    Method invokeCleaner = null;
    try {
      Class<?> type = Class.forName("sun.misc.Unsafe");
      Field field = type.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      unsafe = field.get(null);
      invokeCleaner = type.getMethod("invokeCleaner", ByteBuffer.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.info("index mappings will be released by the garbage collector reason={}", e.toString());
    }
    UNSAFE = unsafe;
    INVOKE_CLEANER = invokeCleaner;
  }

  private Unmapper() {}

  /** Unmaps {@code buffer} if it is a file mapping this JVM can unmap; otherwise does nothing. */
  static void unmap(ByteBuffer buffer) {
    if (INVOKE_CLEANER == null || !(buffer instanceof MappedByteBuffer) || !buffer.isDirect()) {
      return;
    }
    try {
      INVOKE_CLEANER.invoke(UNSAFE, buffer);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      LOG.debug("cannot unmap an index mapping reason={}", e.toString());
    }
  }
}
