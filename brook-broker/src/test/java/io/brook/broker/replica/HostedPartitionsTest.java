package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class HostedPartitionsTest {
  @Test
  void partitionsWhoseTopicPartitionHashesCollideAreKeptApart() {
    // Numbered topic names collide across topics in TopicPartition's hash code.
    HostedPartitions<String> hosted = new HostedPartitions<>();
    Set<Integer> hashes = new HashSet<>();
    for (int t = 0; t < 200; t++) {
      for (int p = 0; p < 12; p++) {
        TopicPartition tp = new TopicPartition(String.format("bench-%05d", t), p);
        hashes.add(tp.hashCode());
        hosted.put(tp, tp.toString());
      }
    }
    assertThat(hashes).hasSizeLessThan(200 * 12); // they do collide

    for (int t = 0; t < 200; t++) {
      for (int p = 0; p < 12; p++) {
        TopicPartition tp = new TopicPartition(String.format("bench-%05d", t), p);
        assertThat(hosted.get(tp)).isEqualTo(tp.toString());
      }
    }
    assertThat(hosted.values()).hasSize(200 * 12).doesNotHaveDuplicates();
  }

  @Test
  void removingTheLastPartitionOfATopicForgetsTheTopic() {
    HostedPartitions<String> hosted = new HostedPartitions<>();
    TopicPartition a0 = new TopicPartition("a", 0);
    TopicPartition a1 = new TopicPartition("a", 1);
    hosted.put(a0, "a0");
    hosted.put(a1, "a1");
    hosted.put(new TopicPartition("b", 0), "b0");

    assertThat(hosted.remove(a0)).isEqualTo("a0");
    assertThat(hosted.remove(a0)).isNull();
    assertThat(hosted.get(a1)).isEqualTo("a1");
    assertThat(hosted.remove(a1)).isEqualTo("a1");
    assertThat(hosted.remove(new TopicPartition("c", 0))).isNull();

    assertThat(hosted.values()).containsExactly("b0");
    assertThat(hosted.get(a1)).isNull();
    hosted.put(a1, "a1 again");
    assertThat(hosted.values()).containsExactlyInAnyOrder("b0", "a1 again");
  }

  @Test
  void aPartitionPutAgainReplacesTheOldOne() {
    HostedPartitions<String> hosted = new HostedPartitions<>();
    TopicPartition tp = new TopicPartition("a", 3);
    hosted.put(tp, "old");
    hosted.put(tp, "new");

    assertThat(hosted.get(tp)).isEqualTo("new");
    assertThat(hosted.values()).containsExactly("new");
  }
}
