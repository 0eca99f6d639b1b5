package io.brook.protocol.network;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Sets {@code throttle_time_ms} on any response message that has the field. kafka-clients'
 * generated response classes share no interface for it, so the setter is looked up once per class.
 */
final class ThrottleTimes {
  private static final ClassValue<Optional<MethodHandle>> SETTERS =
      new ClassValue<>() {
        @Override
        protected Optional<MethodHandle> computeValue(Class<?> type) {
          try {
            return Optional.of(
                MethodHandles.publicLookup()
                    .findVirtual(
                        type, "setThrottleTimeMs", MethodType.methodType(type, int.class)));
          } catch (NoSuchMethodException | IllegalAccessException e) {
            return Optional.empty();
          }
        }
      };

  private ThrottleTimes() {}

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
}
