package io.brook.quorum;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The on-disk side of a node's Raft storage ({@code __cluster_metadata-0}) that Brook decides
 * before Ratis opens it: the group directory, and the peer id this node has in the group.
 *
 * <p>Ratis keeps a group under a directory named by the group id. Earlier Brook versions derived
 * that id from the voter ids; the id is now fixed ({@link RatisConfig#GROUP_ID}), and a directory
 * of the derived id is renamed to the fixed one once, at start (nothing inside names the group: the
 * log, the Raft metadata and the snapshots carry over unchanged).
 *
 * <p>The peer id is written to {@value #PEER_ID_FILE} at first start and read from there on, so a
 * node keeps the identity its peers know it by even if its configuration changes.
 */
final class RatisStorage {
  private static final Logger log = LoggerFactory.getLogger(RatisStorage.class);

  static final String PEER_ID_FILE = "raft-peer-id";

  private RatisStorage() {}

  /**
   * Moves an earlier version's group directory to the fixed group id, then returns this node's peer
   * id: the recorded one; {@code node-<id>} for data written before peer ids were recorded or for a
   * member of a static multi-voter set (its peers name it so); else {@code
   * node-<id>@<directory.id>}.
   *
   * @throws IllegalStateException if the storage holds several groups, or another node's id
   */
  static RaftPeerId prepare(QuorumSettings settings) throws IOException {
    Path root = settings.storageDir();
    Files.createDirectories(root);
    boolean existing = migrateGroupDirectory(root);
    Path file = root.resolve(PEER_ID_FILE);
    if (Files.exists(file)) {
      RaftPeerId recorded =
          RaftPeerId.valueOf(Files.readString(file, StandardCharsets.UTF_8).trim());
      if (RatisConfig.nodeId(recorded) != settings.nodeId()) {
        throw new IllegalStateException(
            "the Raft storage "
                + root
                + " belongs to "
                + recorded
                + ", not node.id="
                + settings.nodeId());
      }
      return recorded;
    }
    boolean staticMultiVoter =
        !settings.voters().isEmpty()
            && !settings.voters().keySet().equals(Set.of(settings.nodeId()));
    RaftPeerId id =
        existing || staticMultiVoter
            ? RatisConfig.peerId(settings.nodeId())
            : RatisConfig.peerId(settings.nodeId(), settings.directoryId());
    Path tmp = root.resolve(PEER_ID_FILE + ".tmp");
    Files.writeString(tmp, id.toString(), StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    return id;
  }

  /**
   * Renames the one group directory of another id, if any, to the fixed id.
   *
   * @return whether the storage already held a group
   */
  private static boolean migrateGroupDirectory(Path root) throws IOException {
    Path fixed = root.resolve(RatisConfig.GROUP_ID.getUuid().toString());
    List<Path> others = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
      for (Path entry : entries) {
        if (Files.isDirectory(entry) && isUuid(entry.getFileName().toString())) {
          if (!entry.equals(fixed)) {
            others.add(entry);
          }
        }
      }
    }
    if (others.isEmpty()) {
      return Files.isDirectory(fixed);
    }
    if (others.size() > 1 || Files.exists(fixed)) {
      throw new IllegalStateException(
          "the Raft storage " + root + " holds several groups: " + others + " and " + fixed);
    }
    Files.move(others.get(0), fixed, StandardCopyOption.ATOMIC_MOVE);
    log.info(
        "Moved the Raft group of an earlier version to the fixed group id from={} to={}",
        others.get(0).getFileName(),
        fixed.getFileName());
    return true;
  }

  private static boolean isUuid(String name) {
    try {
      return UUID.fromString(name).toString().equals(name);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
