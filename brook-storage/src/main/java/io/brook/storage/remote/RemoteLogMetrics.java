package io.brook.storage.remote;

/**
 * Where the remote log manager reports what it does, for Kafka's remote storage meters ({@code
 * kafka.server:type=BrokerTopicMetrics}: Remote{Copy,Fetch,Delete}RequestsPerSec, their {@code
 * ErrorsPerSec}, RemoteCopyBytesPerSec and RemoteFetchBytesPerSec, per topic and over all topics).
 * The broker binds it to its metrics registry; every call is from a remote log manager thread,
 * never an event loop.
 */
public interface RemoteLogMetrics {
  /** What was asked of the store. */
  enum Operation {
    /** A segment (its log file and indexes) copied to the store. */
    COPY,
    /** A read of remote data for a fetch. */
    FETCH,
    /** A remote segment deleted (retention, DeleteRecords, a compaction's replaced segments). */
    DELETE
  }

  /** Records nothing. */
  RemoteLogMetrics NONE =
      new RemoteLogMetrics() {
        @Override
        public void succeeded(String topic, Operation operation, long bytes) {}

        @Override
        public void failed(String topic, Operation operation) {}

        @Override
        public void topicDeleted(String topic) {}
      };

  /** One {@code operation} on {@code topic}'s data done, moving {@code bytes} bytes. */
  void succeeded(String topic, Operation operation, long bytes);

  /** One {@code operation} on {@code topic}'s data failed (copies are retried at the next run). */
  void failed(String topic, Operation operation);

  /** {@code topic} was deleted: its own metrics go (the all-topics ones keep their counts). */
  void topicDeleted(String topic);
}
