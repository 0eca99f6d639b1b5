/**
 * What the controller answers with, shared by both sides of a node: {@link
 * io.brook.metadata.controller.ControllerResult} (the records of an operation plus its response,
 * the unit a {@link io.brook.metadata.quorum.MetadataQuorum} runs), {@link
 * io.brook.metadata.controller.ApiError} (a Kafka error code and message, as a value), {@link
 * io.brook.metadata.controller.MetadataException} (a call a correct broker never makes) and {@link
 * io.brook.metadata.controller.ProducerIdBlock}. The controller's state machine that produces them
 * is brook-controller's {@code io.brook.controller.state}.
 */
package io.brook.metadata.controller;
