/**
 * The assembly of the controller side of a node ({@link io.brook.controller.ControllerServices}).
 * The rest of brook-controller keeps, for now, the packages its classes had before the module
 * existed: {@code io.brook.controller.quorum} (the Ratis adapter) and controller classes of {@code
 * io.brook.broker.cluster} and {@code io.brook.broker.api}.
 */
package io.brook.controller;
