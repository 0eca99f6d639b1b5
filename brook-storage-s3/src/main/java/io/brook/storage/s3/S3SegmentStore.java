package io.brook.storage.s3;

import io.brook.storage.remote.ManifestConflictException;
import io.brook.storage.remote.ObjectSegmentStore;
import io.brook.storage.remote.RemoteLogManifest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Tiered storage in an S3 bucket (or any S3-compatible server: MinIO, s3proxy, ...) through the AWS
 * SDK v2 with its blocking URL-connection HTTP client. Settings ({@code rsm.config.} prefix
 * removed):
 *
 * <ul>
 *   <li>{@code s3.bucket} (required), {@code s3.region} (default us-east-1), {@code s3.key.prefix}
 *   <li>{@code s3.endpoint.override}: a URL for S3-compatible servers; {@code s3.path.style.access}
 *       (default false) for those without virtual-host buckets
 *   <li>{@code s3.access.key.id} and {@code s3.secret.access.key}; without them the SDK's default
 *       chain (environment, system properties, profile, instance role)
 *   <li>{@code s3.multipart.part.size.bytes} (default 8 MiB, at least 5 MiB): files larger than one
 *       part are uploaded in parts, so a large segment is never one request
 *   <li>{@code s3.max.attempts} (default 3): attempts per request, retried with the SDK's
 *       exponential backoff and jitter; {@code s3.api.call.timeout.ms} (default 60000)
 * </ul>
 *
 * <p>An object PUT replaces the previous one atomically, which is what the manifest needs; a
 * manifest is replaced with a conditional PUT ({@code If-Match} on the ETag its writer read, {@code
 * If-None-Match: *} for the first one), so a writer that read an older manifest fails with 412
 * Precondition Failed instead of overwriting a newer one.
 */
public final class S3SegmentStore extends ObjectSegmentStore {
  static final int MIN_PART_BYTES = 5 * 1024 * 1024;

  private final S3Client s3;
  private final String bucket;
  private final int partBytes;

  /** For {@code remote.log.storage.manager.class.name}: settings are the {@code rsm.config.*}. */
  public S3SegmentStore(Map<String, String> settings) {
    super(settings.getOrDefault("s3.key.prefix", ""));
    this.bucket = required(settings, "s3.bucket");
    this.partBytes =
        Integer.parseInt(
            settings.getOrDefault("s3.multipart.part.size.bytes", Integer.toString(8 << 20)));
    if (partBytes < MIN_PART_BYTES) {
      throw new IllegalArgumentException(
          "rsm.config.s3.multipart.part.size.bytes must be at least " + MIN_PART_BYTES);
    }
    this.s3 = client(settings);
  }

  private static S3Client client(Map<String, String> settings) {
    int attempts = Integer.parseInt(settings.getOrDefault("s3.max.attempts", "3"));
    long timeoutMs = Long.parseLong(settings.getOrDefault("s3.api.call.timeout.ms", "60000"));
    if (attempts < 1 || timeoutMs < 1) {
      throw new IllegalArgumentException(
          "rsm.config.s3.max.attempts and s3.api.call.timeout.ms must be positive");
    }
    S3ClientBuilder builder =
        S3Client.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            // The SDK adds "Expect: 100-continue" to every PutObject and UploadPart, which the
            // JDK's
            // HttpURLConnection under this client handles badly: an answer other than 100 (a 412
            // to a conditional manifest write, say) arrives before the body is sent, and the
            // connection may go back to the pool with its declared body missing, so a later request
            // on it fails with "Error writing request body to server", retries included. Without
            // the handshake a refused upload costs its body's bytes, at most a part.
            .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
            .region(Region.of(settings.getOrDefault("s3.region", "us-east-1")))
            .forcePathStyle(
                Boolean.parseBoolean(settings.getOrDefault("s3.path.style.access", "false")))
            .credentialsProvider(credentials(settings))
            .overrideConfiguration(
                o ->
                    o.retryStrategy(r -> r.maxAttempts(attempts))
                        .apiCallTimeout(Duration.ofMillis(timeoutMs)));
    String endpoint = settings.get("s3.endpoint.override");
    if (endpoint != null && !endpoint.isBlank()) {
      builder.endpointOverride(URI.create(endpoint));
    }
    return builder.build();
  }

  private static AwsCredentialsProvider credentials(Map<String, String> settings) {
    String id = settings.get("s3.access.key.id");
    String secret = settings.get("s3.secret.access.key");
    if (id == null && secret == null) {
      return DefaultCredentialsProvider.builder().build();
    }
    if (id == null || secret == null) {
      throw new IllegalArgumentException(
          "set both rsm.config.s3.access.key.id and s3.secret.access.key, or neither");
    }
    return StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret));
  }

  private static String required(Map<String, String> settings, String name) {
    String value = settings.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("rsm.config." + name + " must be set");
    }
    return value;
  }

  @Override
  protected void putFile(String key, Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size <= partBytes) {
        call(() -> s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(file)));
      } else {
        putMultipart(key, ch, size);
      }
    }
  }

  /** Uploads in parts of {@code partBytes}; an upload that fails is aborted, leaving nothing. */
  private void putMultipart(String key, FileChannel ch, long size) throws IOException {
    String uploadId =
        call(() -> s3.createMultipartUpload(b -> b.bucket(bucket).key(key))).uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      ByteBuffer buffer = ByteBuffer.allocate(partBytes);
      int number = 1;
      for (long at = 0; at < size; at += partBytes, number++) {
        buffer.clear();
        buffer.limit((int) Math.min(partBytes, size - at));
        while (buffer.hasRemaining()) {
          if (ch.read(buffer, at + buffer.position()) < 0) {
            throw new IOException("file shrank while it was uploaded: " + key);
          }
        }
        buffer.flip();
        int part = number;
        RequestBody body = RequestBody.fromByteBuffer(buffer);
        String etag =
            call(() ->
                    s3.uploadPart(
                        b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(part), body))
                .eTag();
        parts.add(CompletedPart.builder().partNumber(part).eTag(etag).build());
      }
      call(
          () ->
              s3.completeMultipartUpload(
                  b ->
                      b.bucket(bucket)
                          .key(key)
                          .uploadId(uploadId)
                          .multipartUpload(m -> m.parts(parts))));
    } catch (IOException | RuntimeException e) {
      try {
        call(() -> s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)));
      } catch (IOException abortFailed) {
        e.addSuppressed(abortFailed);
      }
      throw e;
    }
  }

  @Override
  protected void putBytes(String key, byte[] bytes) throws IOException {
    call(() -> s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes)));
  }

  @Override
  protected byte[] getRange(String key, long start, int length) throws IOException {
    if (length <= 0) {
      return new byte[0];
    }
    String range = "bytes=" + start + "-" + (start + length - 1);
    // Read the body straight into one array of the answer's size: the SDK's getObjectAsBytes grows
    // a buffer 4 KiB at a time and copies the result once more, which was a fifth of a remote
    // reader thread's CPU.
    try (ResponseInputStream<GetObjectResponse> body =
        call(() -> s3.getObject(b -> b.bucket(bucket).key(key).range(range)))) {
      Long reported = body.response().contentLength();
      if (reported != null && reported > length) {
        // A store that ignores Range answers the whole object from its first byte.
        body.abort();
        throw new IOException(
            "object "
                + key
                + ": asked for "
                + length
                + " bytes ("
                + range
                + "), answered "
                + reported);
      }
      int expected = reported == null ? length : (int) (long) reported;
      byte[] bytes = new byte[expected];
      int read;
      try {
        read = body.readNBytes(bytes, 0, expected);
      } catch (SdkException e) {
        throw new IOException("reading " + key + " " + range + ": " + e.getMessage(), e);
      }
      if (read == expected) {
        return bytes;
      }
      if (reported != null) {
        // The body ended before the length the store announced: a broken connection, not the
        // end of the object.
        throw new IOException(
            "object "
                + key
                + " "
                + range
                + ": body ended after "
                + read
                + " of "
                + expected
                + " bytes");
      }
      return Arrays.copyOf(bytes, read);
    } catch (S3IOException e) {
      if (e.status == 404) {
        throw new NoSuchFileException(key);
      }
      if (e.status == 416) {
        return new byte[0]; // the range starts at or past the end
      }
      throw e;
    }
  }

  @Override
  protected Optional<byte[]> getAll(String key, int maxBytes) throws IOException {
    return getVersioned(key, maxBytes).map(StoredManifest::bytes);
  }

  @Override
  protected Optional<StoredManifest> getVersioned(String key, int maxBytes) throws IOException {
    ResponseBytes<GetObjectResponse> bytes;
    try {
      bytes = call(() -> s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)));
    } catch (S3IOException e) {
      if (e.status == 404) {
        return Optional.empty();
      }
      throw e;
    }
    Long length = bytes.response().contentLength();
    if (length != null && length > maxBytes) {
      throw new IOException("object " + key + " is larger than " + maxBytes + " bytes");
    }
    return Optional.of(new StoredManifest(bytes.asByteArrayUnsafe(), bytes.response().eTag()));
  }

  @Override
  protected String putBytesIf(String key, byte[] bytes, Optional<String> expectedVersion)
      throws IOException {
    try {
      return call(() ->
              s3.putObject(
                  b -> {
                    b.bucket(bucket).key(key);
                    if (expectedVersion.isPresent()) {
                      b.ifMatch(expectedVersion.get());
                    } else {
                      b.ifNoneMatch("*");
                    }
                  },
                  RequestBody.fromBytes(bytes)))
          .eTag();
    } catch (S3IOException e) {
      // 412: the object is another version; 409: a concurrent conditional write to it won.
      if (e.status == 412 || e.status == 409) {
        throw new ManifestConflictException(
            key + " is no longer version " + expectedVersion.orElse("(none)"), e);
      }
      throw e;
    } catch (InterruptedIOException e) {
      throw e;
    } catch (IOException e) {
      return afterNoAnswer(key, bytes, expectedVersion, e);
    }
  }

  /**
   * A conditional write that got no answer: the server may have refused it (a server that answers
   * 412 from the headers alone can close the connection while the body is still on its way, the
   * client then sees only "Error writing request body") or stored it. What is stored tells which:
   * these bytes (stored, its answer lost), the version expected (or none) still (not written: the
   * failure stands, to be tried again), anything else a conflict.
   */
  String afterNoAnswer(
      String key, byte[] bytes, Optional<String> expectedVersion, IOException noAnswer)
      throws IOException {
    Optional<StoredManifest> stored;
    try {
      stored = getVersioned(key, RemoteLogManifest.MAX_BYTES);
    } catch (IOException readFailed) {
      noAnswer.addSuppressed(readFailed);
      throw noAnswer;
    }
    if (stored.isPresent() && Arrays.equals(stored.get().bytes(), bytes)) {
      return stored.get().version();
    }
    if (stored.map(StoredManifest::version).equals(expectedVersion)) {
      throw noAnswer;
    }
    throw new ManifestConflictException(
        key + " is no longer version " + expectedVersion.orElse("(none)"), noAnswer);
  }

  @Override
  protected void delete(String key) throws IOException {
    // S3 deletes are idempotent: deleting a missing key succeeds.
    call(() -> s3.deleteObject(b -> b.bucket(bucket).key(key)));
  }

  @Override
  protected List<String> list(String keyPrefix) throws IOException {
    return call(
        () -> {
          List<String> out = new ArrayList<>();
          for (S3Object o :
              s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(keyPrefix)).contents()) {
            out.add(o.key());
          }
          return out;
        });
  }

  /** An S3 failure as an IOException, with its HTTP status (404 for a missing key). */
  static final class S3IOException extends IOException {
    private static final long serialVersionUID = 1L;
    final int status;

    S3IOException(String message, int status, Throwable cause) {
      super(message, cause);
      this.status = status;
    }
  }

  private interface Call<T> {
    T run();
  }

  /**
   * Runs one SDK call (which retries by itself) and turns its unchecked failures into {@link
   * IOException}s, so callers handle storage failures in one way whatever the store.
   */
  private static <T> T call(Call<T> call) throws IOException {
    try {
      return call.run();
    } catch (NoSuchKeyException e) {
      throw new S3IOException(e.getMessage(), 404, e);
    } catch (S3Exception e) {
      throw new S3IOException(e.getMessage(), e.statusCode(), e);
    } catch (SdkException e) {
      if (Thread.currentThread().isInterrupted()) {
        InterruptedIOException interrupted = new InterruptedIOException(e.getMessage());
        interrupted.initCause(e);
        throw interrupted;
      }
      throw new IOException(e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    s3.close();
  }
}
