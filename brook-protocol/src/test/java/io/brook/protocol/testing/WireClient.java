package io.brook.protocol.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** A blocking Kafka-protocol client over a plain socket, encoding with kafka-clients. */
public final class WireClient implements AutoCloseable {
  public static final String CLIENT_ID = "wire-test";

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private int nextCorrelationId = 1;

  private WireClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  public static WireClient connect(int port) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(5_000);
    return new WireClient(socket);
  }

  /** A decoded response. */
  public record Response(int correlationId, ApiMessage body, int frameBytes) {
    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> T as(Class<T> type) {
      assertThat(body).isInstanceOf(type);
      return (T) body;
    }
  }

  /** Sends {@code request} at {@code version} and returns its correlation id. */
  public int send(ApiMessage request, short version) throws IOException {
    int correlationId = nextCorrelationId++;
    sendRaw(encodeRequest(request, version, correlationId, CLIENT_ID));
    return correlationId;
  }

  public void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Sends and reads the response, checking its correlation id. */
  public Response roundTrip(ApiMessage request, short version) throws IOException {
    int correlationId = send(request, version);
    Response response = receive(ApiKeys.forId(request.apiKey()), version);
    assertThat(response.correlationId()).isEqualTo(correlationId);
    return response;
  }

  /** Reads one response frame and decodes it as {@code apiKey} at {@code version}. */
  public Response receive(ApiKeys apiKey, short version) throws IOException {
    ByteBuffer frame = receiveFrame();
    int frameBytes = frame.remaining();
    ByteBufferAccessor accessor = new ByteBufferAccessor(frame);
    ResponseHeaderData header =
        new ResponseHeaderData(accessor, apiKey.responseHeaderVersion(version));
    ApiMessage body = ApiMessageType.fromApiKey(apiKey.id).newResponse();
    body.read(accessor, version);
    assertThat(frame.remaining()).as("bytes after the response body").isZero();
    return new Response(header.correlationId(), body, frameBytes);
  }

  /** Reads one response frame (without its length prefix). */
  public ByteBuffer receiveFrame() throws IOException {
    int length = in.readInt();
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return ByteBuffer.wrap(bytes);
  }

  /** Asserts the server closes the connection (end of stream or reset) within the timeout. */
  public void assertClosedByServer() throws IOException {
    try {
      int read = in.read();
      assertThat(read).as("server should have closed the connection").isEqualTo(-1);
    } catch (EOFException | SocketException e) {
      // reset by the server: closed as well
    } catch (SocketTimeoutException e) {
      throw new AssertionError("server did not close the connection", e);
    }
  }

  /** Whether the server has closed the connection, waiting at most {@code millis}. */
  public boolean isClosedByServer(int millis) throws IOException {
    int previous = socket.getSoTimeout();
    socket.setSoTimeout(millis);
    try {
      return in.read() == -1;
    } catch (SocketException e) {
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } finally {
      socket.setSoTimeout(previous);
    }
  }

  public void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** A whole request frame: length prefix, header at the version's header version, body. */
  public static byte[] encodeRequest(
      ApiMessage request, short version, int correlationId, String clientId) {
    ApiKeys apiKey = ApiKeys.forId(request.apiKey());
    return encodeRequest(
        apiKey,
        version,
        apiKey.requestHeaderVersion(version),
        correlationId,
        clientId,
        request,
        version);
  }

  /**
   * A request frame with the body written at {@code bodyVersion}, which may differ from the version
   * in the header (to fake versions kafka-clients cannot write).
   */
  public static byte[] encodeRequest(
      ApiKeys apiKey,
      short headerApiVersion,
      short headerVersion,
      int correlationId,
      String clientId,
      ApiMessage body,
      short bodyVersion) {
    RequestHeaderData header =
        new RequestHeaderData()
            .setRequestApiKey(apiKey.id)
            .setRequestApiVersion(headerApiVersion)
            .setCorrelationId(correlationId)
            .setClientId(clientId);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int headerBytes = header.size(cache, headerVersion);
    int bodyBytes = body.size(cache, bodyVersion);
    ByteBuffer buffer = ByteBuffer.allocate(4 + headerBytes + bodyBytes);
    ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
    accessor.writeInt(headerBytes + bodyBytes);
    header.write(accessor, cache, headerVersion);
    body.write(accessor, cache, bodyVersion);
    assertThat(buffer.hasRemaining()).isFalse();
    return buffer.array();
  }

  /** A frame: 4-byte length then {@code payload}. */
  public static byte[] frame(byte[] payload) {
    return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
  }
}
