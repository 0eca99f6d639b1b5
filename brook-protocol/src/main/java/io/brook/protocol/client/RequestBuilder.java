package io.brook.protocol.client;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Builds a request body once its version is known (chosen from the peer's ApiVersions). Runs on an
 * event loop: it must be quick and must not block.
 */
@FunctionalInterface
public interface RequestBuilder {
  /**
   * @throws org.apache.kafka.common.errors.UnsupportedVersionException if the request cannot be
   *     expressed at {@code version}
   */
  ApiMessage build(short version);
}
