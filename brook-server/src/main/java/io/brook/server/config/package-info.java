/**
 * Broker configuration under Kafka 4.x names, types, defaults and validation rules.
 *
 * <p>{@link io.brook.server.config.BrokerConfig} reads a Kafka {@code server.properties} (or a map)
 * and exposes typed accessors; {@link io.brook.server.config.BrokerConfigDef} is the table of every
 * broker config Brook accepts, grouped by {@link io.brook.server.config.ConfigArea} and marked as
 * acted on today or not yet. Topic-level configs live next to the log they configure, in {@code
 * io.brook.storage.log.TopicConfigs}. {@link io.brook.server.config.ConfigurationDoc} renders both
 * tables into {@code docs/configuration.md}.
 */
package io.brook.server.config;
