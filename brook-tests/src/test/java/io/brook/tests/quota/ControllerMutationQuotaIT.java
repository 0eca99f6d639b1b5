package io.brook.tests.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DeleteTopicsOptions;
import org.apache.kafka.clients.admin.DeleteTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code controller_mutation_rate} (KIP-599) with kafka-clients' Admin: a client creating many
 * partitions gets {@code THROTTLING_QUOTA_EXCEEDED} for what is over its quota and a throttle time,
 * Admin retries and completes, deletions are charged alike, an old CreateTopics version is admitted
 * whole and only throttled, and a client without a quota is never refused. Each test uses client
 * ids of its own.
 */
@Timeout(120)
class ControllerMutationQuotaIT {
  /** Two samples of 1 s: a bucket of twice the quota, so a test needs little to go over it. */
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("controller.quota.window.num", "2")
              .config("controller.quota.window.size.seconds", "1"));

  /** 10 partitions a second, a burst of 20. */
  private static final double RATE = 10;

  @Test
  void aClientCreatingManyPartitionsIsSlowedAndAdminRetriesWhileAnotherIsNot() throws Exception {
    // Given
    setQuota("creator", RATE);
    List<NewTopic> topics = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      topics.add(new NewTopic("created-" + i, 5, (short) 1));
    }
    try (Admin creator = admin("creator");
        Admin other = admin("bystander")) {
      // When: 50 partitions at once, with Admin's retries on quota violations
      long start = System.nanoTime();
      creator.createTopics(topics).all().get(60, TimeUnit.SECONDS);
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      // Then: all created, and no faster than the bucket allows: 25 of the 50 partitions past the
      // burst (20, plus the 5 of the topic that took the bucket into debt) refill at 10 a second
      assertThat(creator.listTopics().names().get()).containsAll(names(topics));
      assertThat(elapsedMs).isGreaterThanOrEqualTo(2_000);

      // And: the creator is over its quota, another client is not
      CreateTopicsResult refused =
          creator.createTopics(
              List.of(new NewTopic("created-late", 5, (short) 1)),
              new CreateTopicsOptions().retryOnQuotaViolation(false));
      assertThrottled(refused.all());
      other
          .createTopics(
              List.of(new NewTopic("bystander", 30, (short) 1)),
              new CreateTopicsOptions().retryOnQuotaViolation(false))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void deletionsAreChargedAndRefusedOverTheQuota() throws Exception {
    // Given: 8 topics of 5 partitions, created before the quota
    List<NewTopic> topics = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      topics.add(new NewTopic("deleted-" + i, 5, (short) 1));
    }
    try (Admin deleter = admin("deleter")) {
      deleter.createTopics(topics).all().get(30, TimeUnit.SECONDS);
      setQuota("deleter", RATE);

      // When: 40 partitions deleted at once, without retries
      DeleteTopicsResult deleted =
          deleter.deleteTopics(
              names(topics), new DeleteTopicsOptions().retryOnQuotaViolation(false));

      // Then: the first five topics fit the burst (the fifth takes the bucket into debt), the rest
      // are refused with a throttle time
      int refused = 0;
      for (var e : deleted.topicNameValues().entrySet()) {
        try {
          e.getValue().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException ex) {
          assertThat(ex.getCause()).isInstanceOf(ThrottlingQuotaExceededException.class);
          assertThat(((ThrottlingQuotaExceededException) ex.getCause()).throttleTimeMs())
              .isPositive();
          refused++;
        }
      }
      assertThat(refused).isEqualTo(3);
      assertThat(deleter.listTopics().names().get())
          .filteredOn(name -> name.startsWith("deleted-"))
          .hasSize(3);
    }
  }

  @Test
  void anOldCreateTopicsVersionIsAdmittedWholeAndThrottled() throws Exception {
    // Given
    setQuota("old-creator", RATE);
    CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(30_000);
    for (int i = 0; i < 8; i++) {
      request
          .topics()
          .add(
              new CreateTopicsRequestData.CreatableTopic()
                  .setName("old-" + i)
                  .setNumPartitions(5)
                  .setReplicationFactor((short) 1));
    }
    short version = 5; // before THROTTLING_QUOTA_EXCEEDED
    try (RawKafkaClient client =
        new RawKafkaClient("127.0.0.1", BROOK.brook().port(), "old-creator")) {
      // When: 40 partitions at once
      ByteBuffer bytes = client.send(request, version);
      CreateTopicsResponseData response =
          new CreateTopicsResponseData(new ByteBufferAccessor(bytes), version);

      // Then: every topic created, the client throttled for the debt (20 partitions at 10/s)
      assertThat(response.topics())
          .allSatisfy(t -> assertThat(Errors.forCode(t.errorCode())).isEqualTo(Errors.NONE));
      assertThat(response.throttleTimeMs()).isBetween(1_000, 2_000);
    }
  }

  private static void assertThrottled(org.apache.kafka.common.KafkaFuture<Void> future) {
    try {
      future.get(30, TimeUnit.SECONDS);
      throw new AssertionError("not throttled");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ThrottlingQuotaExceededException.class);
      assertThat(((ThrottlingQuotaExceededException) e.getCause()).throttleTimeMs()).isPositive();
    } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
      throw new AssertionError(e);
    }
  }

  private static List<String> names(List<NewTopic> topics) {
    return topics.stream().map(NewTopic::name).toList();
  }

  private static Admin admin(String clientId) {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            BROOK.bootstrapServers(),
            AdminClientConfig.CLIENT_ID_CONFIG,
            clientId));
  }

  /** Sets a client id's mutation rate and waits until the broker's metadata shows it. */
  private static void setQuota(String clientId, double rate) throws Exception {
    try (Admin admin = admin("quota-setter")) {
      ClientQuotaIT.setQuota(
          admin, ClientQuotaEntity.CLIENT_ID, clientId, "controller_mutation_rate", rate);
    }
  }
}
