package io.brook.server;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;

/**
 * {@code meta.properties} in every log directory: which cluster and node the data belongs to. Kafka
 * requires a separate format step to write it; Brook writes it on first start (a new cluster id)
 * and checks it on every later start, so data of one node or cluster is never opened by another.
 */
final class MetaProperties {
  static final String FILE_NAME = "meta.properties";

  private MetaProperties() {}

  /**
   * Returns the cluster id recorded in the directories, creating {@code meta.properties} where
   * missing.
   *
   * @throws IllegalStateException if directories disagree or belong to another node
   */
  static String ensure(List<Path> logDirs, int nodeId) throws IOException {
    return ensure(logDirs, nodeId, () -> Uuid.randomUuid().toString());
  }

  /**
   * As {@link #ensure(List, int)}, with the cluster id to record on first start: nodes of one
   * cluster derive the same one, as they have no shared format step.
   */
  static String ensure(List<Path> logDirs, int nodeId, Supplier<String> newClusterId)
      throws IOException {
    String clusterId = null;
    for (Path dir : logDirs) {
      Optional<Properties> existing = read(dir);
      if (existing.isEmpty()) {
        continue;
      }
      String storedNode = existing.get().getProperty("node.id");
      if (storedNode != null && !storedNode.equals(Integer.toString(nodeId))) {
        throw new IllegalStateException(
            "log directory "
                + dir
                + " belongs to node.id="
                + storedNode
                + ", not "
                + nodeId
                + "; use another log.dirs or the matching node.id");
      }
      String stored = existing.get().getProperty("cluster.id");
      if (clusterId != null && stored != null && !clusterId.equals(stored)) {
        throw new IllegalStateException(
            "log directories belong to different clusters: " + clusterId + " and " + stored);
      }
      if (stored != null) {
        clusterId = stored;
      }
    }
    if (clusterId == null) {
      clusterId = newClusterId.get();
    }
    for (Path dir : logDirs) {
      if (read(dir).isEmpty()) {
        write(dir, clusterId, nodeId);
      }
    }
    return clusterId;
  }

  /**
   * The {@code directory.id} of each log directory (Kafka's, KIP-858), by absolute path: how
   * heartbeats name the directories that failed. A file written before it was recorded gets one
   * now.
   */
  static Map<Path, Uuid> directoryIds(List<Path> logDirs) throws IOException {
    Map<Path, Uuid> ids = new LinkedHashMap<>();
    for (Path dir : logDirs) {
      Properties props =
          read(dir).orElseThrow(() -> new IOException("no meta.properties in " + dir));
      String id = props.getProperty("directory.id");
      if (id == null) {
        id = Uuid.randomUuid().toString();
        props.setProperty("directory.id", id);
        store(dir, props);
      }
      ids.put(dir.toAbsolutePath().normalize(), Uuid.fromString(id));
    }
    return ids;
  }

  private static Optional<Properties> read(Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      props.load(reader);
    }
    return Optional.of(props);
  }

  private static void write(Path dir, String clusterId, int nodeId) throws IOException {
    Files.createDirectories(dir);
    Properties props = new Properties();
    props.setProperty("version", "1");
    props.setProperty("cluster.id", clusterId);
    props.setProperty("node.id", Integer.toString(nodeId));
    props.setProperty("directory.id", Uuid.randomUuid().toString());
    store(dir, props);
  }

  private static void store(Path dir, Properties props) throws IOException {
    Path tmp = dir.resolve(FILE_NAME + ".tmp");
    try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      props.store(writer, "Written by Brook on first start; do not edit");
    }
    Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
  }
}
