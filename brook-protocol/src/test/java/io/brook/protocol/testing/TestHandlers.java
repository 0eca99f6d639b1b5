package io.brook.protocol.testing;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** Small {@link ApiHandler}s for tests. */
public final class TestHandlers {
  private TestHandlers() {}

  /** Serves every version kafka-clients knows, answering at once with {@code answer}. */
  public static ApiHandler answering(
      ApiKeys apiKey, BiFunction<RequestContext, ApiMessage, ApiMessage> answer) {
    return answering(apiKey, apiKey.oldestVersion(), apiKey.latestVersion(), answer);
  }

  /** Serves {@code min..max}, answering at once with {@code answer}. */
  public static ApiHandler answering(
      ApiKeys apiKey,
      short min,
      short max,
      BiFunction<RequestContext, ApiMessage, ApiMessage> answer) {
    return new Simple(
        apiKey, min, max, (c, r) -> CompletableFuture.completedFuture(answer.apply(c, r)));
  }

  /** Completes every request exceptionally with a new {@code error}. */
  public static ApiHandler failing(ApiKeys apiKey, Supplier<? extends Throwable> error) {
    return new Simple(
        apiKey,
        apiKey.oldestVersion(),
        apiKey.latestVersion(),
        (c, r) -> CompletableFuture.failedFuture(error.get()));
  }

  /** Throws {@code error} from {@code handle} itself. */
  public static ApiHandler throwing(ApiKeys apiKey, Supplier<? extends RuntimeException> error) {
    return new Simple(
        apiKey,
        apiKey.oldestVersion(),
        apiKey.latestVersion(),
        (c, r) -> {
          throw error.get();
        });
  }

  private record Simple(
      ApiKeys apiKey,
      short minVersion,
      short maxVersion,
      BiFunction<RequestContext, ApiMessage, CompletionStage<ApiMessage>> body)
      implements ApiHandler {
    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
      return body.apply(context, request);
    }

    @Override
    public String toString() {
      return "TestHandler[" + apiKey + "]";
    }
  }
}
