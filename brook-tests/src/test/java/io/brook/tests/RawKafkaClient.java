package io.brook.tests;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A bare Kafka-protocol connection for tests that need exact control over what goes on the wire:
 * the same request twice, a broken frame, a version no client would send.
 */
public final class RawKafkaClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private final String clientId;
  private int correlationId;

  public RawKafkaClient(String host, int port) throws IOException {
    this(host, port, "raw-test");
  }

  /** A connection whose requests carry {@code clientId} in their header. */
  public RawKafkaClient(String host, int port, String clientId) throws IOException {
    this.clientId = clientId;
    socket = new Socket(host, port);
    socket.setSoTimeout(30_000);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** Encodes header + body as a frame (length prefix included). */
  public static byte[] frame(ApiMessage body, short version, int correlationId) {
    return frame(body, version, correlationId, "raw-test");
  }

  private static byte[] frame(ApiMessage body, short version, int correlationId, String clientId) {
    ApiKeys key = ApiKeys.forId(body.apiKey());
    RequestHeader header = new RequestHeader(key, version, clientId, correlationId);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    MessageSizeAccumulator size = new MessageSizeAccumulator();
    header.data().addSize(size, cache, header.headerVersion());
    body.addSize(size, cache, version);
    ByteBuffer buffer = ByteBuffer.allocate(4 + size.totalSize());
    buffer.putInt(size.totalSize());
    ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
    header.data().write(accessor, cache, header.headerVersion());
    body.write(accessor, cache, version);
    return buffer.array();
  }

  /** Produces {@code records} as they are to partition 0 of a topic; returns its answer. */
  public ProduceResponseData.PartitionProduceResponse produce(
      String topic, Uuid topicId, short acks, ByteBuffer records) throws IOException {
    short version = ApiKeys.PRODUCE.latestVersion();
    ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
    ProduceRequestData.TopicProduceData topicData =
        new ProduceRequestData.TopicProduceData().setName(topic).setTopicId(topicId);
    topicData
        .partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(0)
                .setRecords(MemoryRecords.readableRecords(records.duplicate())));
    request.topicData().add(topicData);
    ByteBuffer body = send(request, version);
    ProduceResponseData response = new ProduceResponseData(new ByteBufferAccessor(body), version);
    return response.responses().iterator().next().partitionResponses().get(0);
  }

  /**
   * WriteTxnMarkers {@code version} with one marker of {@code producerId} for partition 0 of {@code
   * topic}, as a transaction coordinator sends it; returns the partition's error.
   */
  public Errors writeTxnMarker(
      String topic,
      long producerId,
      short epoch,
      boolean commit,
      int coordinatorEpoch,
      byte transactionVersion,
      short version)
      throws IOException {
    WritableTxnMarkerTopic markerTopic = new WritableTxnMarkerTopic().setName(topic);
    markerTopic.partitionIndexes().add(0);
    WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
    request
        .markers()
        .add(
            new WritableTxnMarker()
                .setProducerId(producerId)
                .setProducerEpoch(epoch)
                .setTransactionResult(commit)
                .setCoordinatorEpoch(coordinatorEpoch)
                .setTransactionVersion(transactionVersion)
                .setTopics(new ArrayList<>(List.of(markerTopic))));
    WriteTxnMarkersResponseData response =
        new WriteTxnMarkersResponseData(new ByteBufferAccessor(send(request, version)), version);
    return Errors.forCode(
        response.markers().get(0).topics().get(0).partitions().get(0).errorCode());
  }

  /** Sends a request and returns the response body buffer (header consumed). */
  public ByteBuffer send(ApiMessage body, short version) throws IOException {
    int id = sendOnly(body, version);
    return receive(ApiKeys.forId(body.apiKey()), version, id);
  }

  /**
   * Writes a request without waiting for its answer (it reaches the broker's socket buffer even
   * while the broker is paused); {@link #receive} reads the answer.
   *
   * @return the request's correlation id
   */
  public int sendOnly(ApiMessage body, short version) throws IOException {
    int id = ++correlationId;
    sendBytes(frame(body, version, id, clientId));
    return id;
  }

  /** The answer to a request of {@code key} sent with {@link #sendOnly}, its header consumed. */
  public ByteBuffer receive(ApiKeys key, short version, int correlationId) throws IOException {
    ByteBuffer response = readFrame();
    ResponseHeader header = ResponseHeader.parse(response, key.responseHeaderVersion(version));
    if (header.correlationId() != correlationId) {
      throw new IOException("correlation id " + header.correlationId() + " != " + correlationId);
    }
    return response;
  }

  void sendBytes(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  ByteBuffer readFrame() throws IOException {
    int length = in.readInt();
    byte[] payload = new byte[length];
    in.readFully(payload);
    return ByteBuffer.wrap(payload);
  }

  /**
   * True once the broker has closed the connection (end of stream or reset) within the socket
   * timeout; false if it sent something or kept the connection open that long.
   */
  boolean closedByPeer() {
    try {
      return in.read() < 0;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** Writes bytes the broker may refuse halfway: a reset while writing is not an error here. */
  void sendBytesIgnoringReset(byte[] bytes) {
    try {
      sendBytes(bytes);
    } catch (IOException e) {
      // The broker closed the connection before reading everything, which is allowed.
    }
  }

  /** Half-closes: the broker sees the end of the stream. */
  void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  public void setTimeout(java.time.Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
