package io.brook.coordinator;

import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.Errors;

/** Creates internal topics through the controller. */
@FunctionalInterface
public interface InternalTopicCreator {
  /**
   * Asks the controller to create {@code topic}.
   *
   * @return NONE or TOPIC_ALREADY_EXISTS when the topic exists afterwards, another error otherwise
   */
  CompletionStage<Errors> create(InternalTopic topic);
}
