/**
 * The metadata image: an immutable view of brokers, topics, partitions, configs and the producer-id
 * counter at one offset of the metadata log. {@link io.brook.metadata.image.MetadataImage#apply}
 * replays records onto it, a pure function; nothing else changes metadata.
 */
package io.brook.metadata.image;
