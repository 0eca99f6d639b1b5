/**
 * The controller's state machine in plain Java: no threads, no I/O, no consensus library.
 *
 * <p>Every operation of {@link io.brook.controller.state.ClusterController} reads the current
 * {@link io.brook.metadata.image.MetadataImage} and returns a {@link
 * io.brook.metadata.controller.ControllerResult}: the records to append plus the response. The
 * caller (a {@link io.brook.metadata.quorum.MetadataQuorum}) appends the records durably, applies
 * them to the image and only then answers; nothing here changes state.
 *
 * <p>Request errors are values ({@link io.brook.metadata.controller.ApiError} with a Kafka {@code
 * Errors} code and Kafka's message), never exceptions. {@link
 * io.brook.metadata.controller.MetadataException} is kept for calls a correct broker never makes (a
 * stale broker epoch).
 */
package io.brook.controller.state;
