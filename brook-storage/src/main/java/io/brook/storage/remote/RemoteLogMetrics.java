package io.brook.storage.remote;

/**
 * Where the remote log manager reports what it does, for Kafka's remote storage metrics ({@code
 * kafka.server:type=BrokerTopicMetrics}: RemoteCopyBytesPerSec, RemoteCopyRequestsPerSec,
 * FailedRemoteCopyRequestsPerSec, RemoteFetchBytesPerSec, RemoteFetchRequestsPerSec,
 * FailedRemoteFetchRequestsPerSec). The broker binds it to its metrics registry; every call is from
 * a remote log manager thread, never an event loop.
 */
public interface RemoteLogMetrics {
  /** Records nothing. */
  RemoteLogMetrics NONE =
      new RemoteLogMetrics() {
        @Override
        public void copied(String topic, long bytes) {}

        @Override
        public void copyFailed(String topic) {}

        @Override
        public void fetched(String topic, long bytes) {}

        @Override
        public void fetchFailed(String topic) {}
      };

  /** A segment of {@code bytes} bytes (its log file) copied to the store. */
  void copied(String topic, long bytes);

  /** A segment copy that failed (it is retried at the next task run). */
  void copyFailed(String topic);

  /** A remote read that returned {@code bytes} bytes. */
  void fetched(String topic, long bytes);

  /** A remote read that failed. */
  void fetchFailed(String topic);
}
