package io.brook.server;

import io.brook.storage.manager.LogManager;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.Uuid;

/**
 * {@code meta.properties} in every log directory: which cluster and node the data belongs to. Kafka
 * requires a separate format step to write it; Brook accepts one (its cluster id is honoured) but
 * needs none: on first start a node adopts its metadata quorum's cluster id ({@link
 * ClusterIdResolver}), and on every later start the ids must match, so data of one node or cluster
 * is never opened by another.
 */
final class MetaProperties {
  static final String FILE_NAME = "meta.properties";

  /** The file Brook's former single-node journal wrote there. */
  static final String LEGACY_JOURNAL_FILE = "metadata.log";

  private MetaProperties() {}

  /**
   * The cluster id recorded in the directories (on a later start, or written by a format step), if
   * any. Writes nothing.
   *
   * @throws IllegalStateException if directories disagree or belong to another node
   */
  static Optional<String> storedClusterId(List<Path> logDirs, int nodeId) throws IOException {
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
    return Optional.ofNullable(clusterId);
  }

  /**
   * Records {@code clusterId} (the metadata quorum's) in every directory's {@code meta.properties}
   * that has none yet; a file written by a format step without a cluster id gets it added.
   */
  static void adopt(List<Path> logDirs, int nodeId, String clusterId) throws IOException {
    for (Path dir : logDirs) {
      Optional<Properties> existing = read(dir);
      if (existing.isEmpty()) {
        write(dir, clusterId, nodeId);
      } else if (existing.get().getProperty("cluster.id") == null) {
        existing.get().setProperty("cluster.id", clusterId);
        store(dir, existing.get());
      }
    }
  }

  /**
   * Refuses a data directory written by Brook's former single-node metadata journal: its records
   * are not in the Raft log every node now keeps, and Brook (before 1.0) does not migrate them.
   */
  static void refuseLegacyJournal(List<Path> logDirs, Path metadataLogDir) {
    List<Path> candidates = new ArrayList<>();
    candidates.add(metadataLogDir);
    candidates.addAll(logDirs);
    for (Path dir : candidates) {
      Path metadataDir = dir.resolve(LogManager.METADATA_DIRECTORY);
      if (Files.exists(metadataDir.resolve(LEGACY_JOURNAL_FILE))) {
        throw new IllegalStateException(
            "found the metadata journal of an earlier Brook version in "
                + metadataDir
                + "; this version keeps metadata in a Raft log and cannot read it. Remove "
                + dir
                + " (its topics and data are lost) or run the earlier version");
      }
    }
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

  /**
   * The {@code directory.id} of {@code metadata.log.dir}, created with its {@code meta.properties}
   * (without a cluster id yet: {@link #adopt} adds it) when the node starts for the first time. The
   * quorum needs it before the cluster id is known: it names this node as a voter (KIP-853).
   */
  static Uuid metadataDirectoryId(Path metadataLogDir, int nodeId) throws IOException {
    Optional<Properties> existing = read(metadataLogDir);
    Properties props = existing.orElseGet(Properties::new);
    String id = props.getProperty("directory.id");
    if (id != null) {
      return Uuid.fromString(id);
    }
    if (existing.isEmpty()) {
      Files.createDirectories(metadataLogDir);
      props.setProperty("version", "1");
      props.setProperty("node.id", Integer.toString(nodeId));
    }
    Uuid created = Uuid.randomUuid();
    props.setProperty("directory.id", created.toString());
    store(metadataLogDir, props);
    return created;
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
