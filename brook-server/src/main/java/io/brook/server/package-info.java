/** Brook's node: configuration under Kafka's names, lifecycle, wiring of the modules, main. */
package io.brook.server;
