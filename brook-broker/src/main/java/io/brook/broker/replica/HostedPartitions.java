package io.brook.broker.replica;

import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions a broker hosts ({@code P}: {@link Partition}), by topic name and then partition
 * index, safe for concurrent readers (every request looks partitions up here) while the metadata
 * thread adds and removes.
 *
 * <p>Not one map keyed by {@link TopicPartition}: its hash code adds the topic name's hash to a
 * small multiple of the partition index, and names that differ in their last characters (as
 * numbered topic names do) have hashes a few units apart, so partitions of different topics
 * collide. 2,000 topics of 12 partitions gave 4,200 distinct hash codes for 24,000 partitions, up
 * to 10 per code; the map's tree bins then compared topic names on every lookup, a sixth of a
 * leader's CPU while it answered follower fetches. Distinct names have distinct string hashes far
 * more often, and partition indexes never collide.
 */
final class HostedPartitions<P> {
  private final ConcurrentHashMap<String, Map<Integer, P>> byTopic = new ConcurrentHashMap<>();

  private final Collection<P> values =
      new AbstractCollection<>() {
        @Override
        public Iterator<P> iterator() {
          Iterator<Map<Integer, P>> topics = byTopic.values().iterator();
          return new Iterator<>() {
            private Iterator<P> current = Collections.emptyIterator();

            @Override
            public boolean hasNext() {
              while (!current.hasNext() && topics.hasNext()) {
                current = topics.next().values().iterator();
              }
              return current.hasNext();
            }

            @Override
            public P next() {
              if (!hasNext()) {
                throw new NoSuchElementException();
              }
              return current.next();
            }
          };
        }

        @Override
        public int size() {
          int size = 0;
          for (Map<Integer, P> topic : byTopic.values()) {
            size += topic.size();
          }
          return size;
        }
      };

  P get(TopicPartition tp) {
    Map<Integer, P> topic = byTopic.get(tp.topic());
    return topic == null ? null : topic.get(tp.partition());
  }

  void put(TopicPartition tp, P partition) {
    byTopic.compute(
        tp.topic(),
        (name, topic) -> {
          Map<Integer, P> partitions = topic == null ? new ConcurrentHashMap<>() : topic;
          partitions.put(tp.partition(), partition);
          return partitions;
        });
  }

  /** Removes {@code tp}'s partition, if hosted, and returns it (else null). */
  P remove(TopicPartition tp) {
    List<P> removed = new ArrayList<>(1);
    byTopic.computeIfPresent(
        tp.topic(),
        (name, topic) -> {
          P partition = topic.remove(tp.partition());
          if (partition != null) {
            removed.add(partition);
          }
          return topic.isEmpty() ? null : topic;
        });
    return removed.isEmpty() ? null : removed.get(0);
  }

  /**
   * Every hosted partition: a live view, weakly consistent like a concurrent map's (a partition
   * added or removed during an iteration may or may not be seen).
   */
  Collection<P> values() {
    return values;
  }
}
