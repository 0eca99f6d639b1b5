package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

/** Sockets, connection limits, request queues and thread pools. */
final class NetworkSettings {

  static final String NUM_NETWORK_THREADS = "num.network.threads";
  static final String NUM_IO_THREADS = "num.io.threads";
  static final String QUEUED_MAX_REQUESTS = "queued.max.requests";
  static final String QUEUED_MAX_REQUEST_BYTES = "queued.max.request.bytes";
  static final String QUEUED_MAX_REQUEST_BYTES_PER_CONNECTION =
      "brook.queued.max.request.bytes.per.connection";
  static final String REQUEST_RECEIVE_TIMEOUT_MS = "brook.request.receive.timeout.ms";
  static final String SOCKET_SEND_BUFFER_BYTES = "socket.send.buffer.bytes";
  static final String SOCKET_RECEIVE_BUFFER_BYTES = "socket.receive.buffer.bytes";
  static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
  static final String SOCKET_LISTEN_BACKLOG_SIZE = "socket.listen.backlog.size";
  static final String MAX_CONNECTIONS = "max.connections";
  static final String MAX_CONNECTIONS_PER_IP = "max.connections.per.ip";
  static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";

  private NetworkSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.NETWORK)
        .uses(
            NUM_NETWORK_THREADS,
            INT,
            3,
            atLeast(1),
            HIGH,
            "Threads per listener that read requests from and write responses to sockets.")
        .uses(
            NUM_IO_THREADS,
            INT,
            8,
            atLeast(1),
            HIGH,
            "Threads of the disk pool (brook-io-N): the requests that may wait for the disk (appends"
                + " that roll or fsync, timestamp searches, DeleteRecords, DescribeLogDirs); the rest"
                + " run on the network threads.")
        .accepts(
            "background.threads",
            INT,
            10,
            atLeast(1),
            HIGH,
            "Threads for background tasks such as deleting files.")
        .uses(
            QUEUED_MAX_REQUESTS,
            INT,
            500,
            atLeast(1),
            HIGH,
            "Requests that may wait for an I/O thread before network threads stop reading. Brook:"
                + " requests in flight on one connection before it stops being read, and tasks"
                + " waiting or running on the disk pool before it answers REQUEST_TIMED_OUT"
                + " (retriable).")
        .uses(
            QUEUED_MAX_REQUEST_BYTES,
            LONG,
            -1L,
            ANY,
            MEDIUM,
            "Bytes of requests the broker holds at once, from the moment a request's size prefix"
                + " is read until its response is built (an acks=all produce: until its appends are"
                + " done); when they are used up the broker stops"
                + " reading from sockets until some are released. -1 (Kafka: no limit) means a"
                + " quarter of the smaller of the JVM's maximum heap and direct memory, so large"
                + " requests can never exhaust either. A request larger than this can never be"
                + " read and closes its connection; an explicit value must be at least"
                + " socket.request.max.bytes.")
        .uses(
            QUEUED_MAX_REQUEST_BYTES_PER_CONNECTION,
            LONG,
            16L * 1024 * 1024,
            atLeast(1),
            MEDIUM,
            "Brook only: bytes of requests in flight on one connection before the broker stops"
                + " reading from it (like queued.max.requests, but in bytes), so one connection"
                + " cannot take the whole queued.max.request.bytes. The request that crosses it is"
                + " still read, so a single request up to socket.request.max.bytes always gets"
                + " through.")
        .uses(
            REQUEST_RECEIVE_TIMEOUT_MS,
            LONG,
            60_000L,
            atLeast(1),
            MEDIUM,
            "Brook only: how long a request may take to arrive whole once its size prefix is read"
                + " and its bytes are reserved in queued.max.request.bytes; a slower one closes"
                + " its connection, so a client trickling bytes cannot hold request memory others"
                + " wait for. The default is twice a client's default request.timeout.ms, after"
                + " which the client has given up on the request anyway.")
        .uses(
            SOCKET_SEND_BUFFER_BYTES,
            INT,
            100 * 1024,
            ANY,
            HIGH,
            "SO_SNDBUF of the connections the Kafka listeners accept; -1 leaves the operating"
                + " system's default (on Linux, sized by the kernel as the connection needs); 0 and"
                + " other negative values stop start-up.")
        .uses(
            SOCKET_RECEIVE_BUFFER_BYTES,
            INT,
            100 * 1024,
            ANY,
            HIGH,
            "SO_RCVBUF of the Kafka listeners' sockets, which the connections they accept"
                + " inherit; -1 leaves the operating system's default; 0 and other negative values"
                + " stop start-up.")
        .uses(
            SOCKET_REQUEST_MAX_BYTES,
            INT,
            100 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Largest request the broker reads; a bigger size prefix closes the connection.")
        .accepts(
            SOCKET_LISTEN_BACKLOG_SIZE,
            INT,
            50,
            atLeast(1),
            MEDIUM,
            "Pending-connection backlog of each listening socket.")
        .uses(
            MAX_CONNECTIONS,
            INT,
            Integer.MAX_VALUE,
            atLeast(0),
            MEDIUM,
            "Open connections the broker allows across all listeners, the inter-broker"
                + " listener aside; one more waits, unread, with its listener not accepting, until"
                + " a connection closes. listener.name.<l>.max.connections limits one listener.")
        .uses(
            MAX_CONNECTIONS_PER_IP,
            INT,
            Integer.MAX_VALUE,
            atLeast(0),
            MEDIUM,
            "Open connections allowed from one IP address; one more is closed at once.")
        .uses(
            "max.connections.per.ip.overrides",
            STRING,
            "",
            ANY,
            MEDIUM,
            "host:limit or ip:limit pairs that override max.connections.per.ip.")
        .uses(
            ListenerConnectionLimits.MAX_CONNECTION_CREATION_RATE,
            INT,
            Integer.MAX_VALUE,
            atLeast(0),
            MEDIUM,
            "New connections per second the broker accepts across its listeners, the"
                + " inter-broker listener aside; more wait for their turn (a second's worth may"
                + " come at once). listener.name.<l>.max.connection.creation.rate limits one"
                + " listener.")
        .uses(
            CONNECTIONS_MAX_IDLE_MS,
            LONG,
            10 * 60 * 1000L,
            ANY,
            MEDIUM,
            "Idle time after which the broker closes a connection.")
        .uses(
            "request.timeout.ms",
            INT,
            30_000,
            ANY,
            HIGH,
            "How long the broker's own outgoing requests (transaction markers) and transaction state"
                + " writes wait.")
        // The inter-node client's connections (replica fetchers, transaction markers).
        .uses(
            "socket.connection.setup.timeout.ms",
            LONG,
            10_000L,
            atLeast(1),
            MEDIUM,
            "How long the broker's first attempt to set up an outgoing connection (connect, then"
                + " ApiVersions) may take; doubled after each consecutive failure, with 20% jitter.")
        .uses(
            "socket.connection.setup.timeout.max.ms",
            LONG,
            30_000L,
            atLeast(1),
            MEDIUM,
            "Upper bound of the growing connection set-up timeout.")
        .uses(
            "reconnect.backoff.ms",
            LONG,
            50L,
            atLeast(0),
            LOW,
            "Kafka's client setting, for the broker's outgoing connections: the pause after a failed"
                + " or lost connection before the next attempt; doubled after each consecutive"
                + " failure, with 20% jitter.")
        .uses(
            "reconnect.backoff.max.ms",
            LONG,
            1_000L,
            atLeast(0),
            LOW,
            "Upper bound of reconnect.backoff.ms's growth.")
        .uses(
            "retry.backoff.ms",
            LONG,
            100L,
            atLeast(0),
            LOW,
            "Kafka's client setting, for the broker's own retried requests (transaction markers):"
                + " the pause before a retry to the same broker; doubled after each consecutive"
                + " failure, with 20% jitter.")
        .uses(
            "retry.backoff.max.ms",
            LONG,
            1_000L,
            atLeast(0),
            LOW,
            "Upper bound of retry.backoff.ms's growth.")
        .uses(
            "fetch.max.bytes",
            INT,
            55 * 1024 * 1024,
            atLeast(1024),
            MEDIUM,
            "Largest response to a consumer Fetch request, whatever the request's max_bytes (the"
                + " first batch is still sent whole so the consumer makes progress).")
        .uses(
            "max.incremental.fetch.session.cache.slots",
            INT,
            1_000,
            atLeast(0),
            MEDIUM,
            "Incremental fetch sessions (KIP-227) the broker keeps, for consumers and followers;"
                + " 0 turns sessions off (every Fetch lists all its partitions). When full, a new"
                + " session evicts a stale one, or a less valuable one (a consumer's for a"
                + " follower's, a smaller one once it is old enough).")
        .uses(
            "brook.min.incremental.fetch.session.eviction.ms",
            LONG,
            120_000L,
            atLeast(0),
            LOW,
            "How long a fetch session must go unused to be evicted as stale, and how old it must"
                + " be before a larger newcomer may evict it (Kafka fixes this at 120000 ms).")
        .accepts(
            "max.request.partition.size.limit",
            INT,
            2_000,
            atLeast(1),
            MEDIUM,
            "Most partitions one request may name.");
  }
}
