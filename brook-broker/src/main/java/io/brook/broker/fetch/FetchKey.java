package io.brook.broker.fetch;

import org.apache.kafka.common.Uuid;

/**
 * A partition as a Fetch request names it: by topic id from v13, by topic name before. On the wire
 * only one of the two is set and the other keeps its default (the same for every topic), so keying
 * by both keys by the one that is set, as Kafka keys its request and session maps.
 */
public record FetchKey(String topic, Uuid topicId, int partition) {}
