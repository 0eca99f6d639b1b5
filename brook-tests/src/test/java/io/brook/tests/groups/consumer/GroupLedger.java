package io.brook.tests.groups.consumer;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the members of a group did, from all their threads: every offset processed per partition,
 * which member owns which partition now, and any moment two members owned one partition.
 */
final class GroupLedger implements GroupMember.Events {
  private final Map<Integer, Set<Long>> consumed = new ConcurrentHashMap<>();
  private final Map<TopicPartition, String> owners = new ConcurrentHashMap<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<TopicPartition, Long> firstAfterAssignment = new ConcurrentHashMap<>();
  private final Set<TopicPartition> awaitingFirst = ConcurrentHashMap.newKeySet();

  @Override
  public void consumed(String member, ConsumerRecord<byte[], byte[]> record) {
    consumed(record.partition(), record.offset());
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    if (awaitingFirst.remove(tp)) {
      firstAfterAssignment.put(tp, record.offset());
    }
  }

  /** The first offset a member processed after it was last assigned {@code tp}. */
  Long firstOffsetAfterAssignment(TopicPartition tp) {
    return firstAfterAssignment.get(tp);
  }

  void consumed(int partition, long offset) {
    consumed.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(offset);
  }

  @Override
  public synchronized void assigned(String member, Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      firstAfterAssignment.remove(tp);
      awaitingFirst.add(tp);
      String previous = owners.putIfAbsent(tp, member);
      if (previous != null && !previous.equals(member)) {
        violations.add(tp + " assigned to " + member + " while " + previous + " owns it");
      }
    }
  }

  @Override
  public synchronized void revoked(String member, Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      owners.remove(tp, member);
    }
  }

  /** A member that died without revoking: its partitions are no longer its own. */
  synchronized void forget(String member) {
    owners.values().removeIf(member::equals);
  }

  long ownedBy(String member) {
    return owners.values().stream().filter(member::equals).count();
  }

  Set<TopicPartition> partitionsOf(String member) {
    return Set.copyOf(
        owners.entrySet().stream()
            .filter(e -> e.getValue().equals(member))
            .map(Map.Entry::getKey)
            .toList());
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  /** The first offset below {@code end} that no member processed, or -1 if none is missing. */
  long firstMissing(int partition, long end) {
    Set<Long> seen = consumed.getOrDefault(partition, Set.of());
    for (long offset = 0; offset < end; offset++) {
      if (!seen.contains(offset)) {
        return offset;
      }
    }
    return -1;
  }
}
