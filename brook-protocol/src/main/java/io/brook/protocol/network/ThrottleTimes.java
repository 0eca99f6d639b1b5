package io.brook.protocol.network;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Reads and sets {@code throttle_time_ms} on any response message that has the field.
 * kafka-clients' generated response classes share no interface for it, so the accessors are looked
 * up once per class.
 */
final class ThrottleTimes {
  private static final ClassValue<Optional<MethodHandle>> SETTERS =
      accessors("setThrottleTimeMs", true);
  private static final ClassValue<Optional<MethodHandle>> GETTERS =
      accessors("throttleTimeMs", false);

  private ThrottleTimes() {}

  /** The response classes' setter (returning the message) or getter of an int field. */
  private static ClassValue<Optional<MethodHandle>> accessors(String name, boolean setter) {
    return new ClassValue<>() {
      @Override
      protected Optional<MethodHandle> computeValue(Class<?> type) {
        MethodType signature =
            setter ? MethodType.methodType(type, int.class) : MethodType.methodType(int.class);
        try {
          return Optional.of(MethodHandles.publicLookup().findVirtual(type, name, signature));
        } catch (NoSuchMethodException | IllegalAccessException e) {
          return Optional.empty();
        }
      }
    };
  }

  /** Sets the response's throttle time; responses without the field are left as they are. */
  static void set(ApiMessage response, int throttleMs) {
    Optional<MethodHandle> setter = SETTERS.get(response.getClass());
    if (setter.isEmpty()) {
      return;
    }
    try {
      Object unused = setter.get().invoke(response, throttleMs);
    } catch (Throwable e) {
      throw new IllegalStateException("cannot set the throttle time of " + response.getClass(), e);
    }
  }

  /**
   * The throttle time a handler already put in the response (the controller's mutation quota sets
   * its own), 0 for responses without the field.
   */
  static int get(ApiMessage response) {
    Optional<MethodHandle> getter = GETTERS.get(response.getClass());
    if (getter.isEmpty()) {
      return 0;
    }
    try {
      return (int) getter.get().invoke(response);
    } catch (Throwable e) {
      throw new IllegalStateException("cannot read the throttle time of " + response.getClass(), e);
    }
  }
}
