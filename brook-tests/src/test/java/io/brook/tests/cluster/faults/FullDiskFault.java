package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A full disk on one node: every node's data directory (its log directory, with its metadata log
 * and Raft journal in it) is a small ext4 file system of its own, a loop-mounted image made when
 * the campaign starts; the fault fills the target's to the last block with a file beside the
 * partitions (the broker ignores plain files there). Its next write fails with {@code ENOSPC}: a
 * log append, an index entry, a checkpoint or a Raft entry, whichever comes first, and some of them
 * only partly written. The node must take its only log directory offline and stop, as with any
 * other I/O error ({@link DiskErrorFault}), while the other two carry the partitions; then the file
 * goes and the node restarts on what it had written. The checks: no acknowledged record lost, and
 * the node stops rather than serving on from a disk it cannot write.
 *
 * <p>Unlike the I/O error class this one makes the file system itself refuse, so writes that
 * reserve space first (a preallocated or memory-mapped index, a file rename) meet the full disk as
 * they would in production. Needs root, {@code mkfs.ext4} and loop devices; the mounts go when the
 * campaign ends (or, if it is killed, with {@code umount} of each {@code data-N} under its
 * directory).
 */
final class FullDiskFault implements CampaignFault {
  /** Large enough for the campaign's data many times over; sparse, so it costs what is written. */
  private static final long DISK_BYTES = 2L << 30;

  private static final String FILLER = "campaign-disk-filler";

  private Optional<String> unavailable = Optional.of("the campaign did not select it");

  @Override
  public String name() {
    return "full-disk";
  }

  @Override
  public boolean crash() {
    return true;
  }

  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    return unavailable;
  }

  /**
   * Before the nodes start: makes and mounts each node's disk on its data directory. Remembers why
   * it cannot (then the class is skipped) and never throws for that.
   */
  void mountDisks(Path clusterDir, int nodes) {
    List<Path> mounted = new ArrayList<>();
    try {
      for (int id = 1; id <= nodes; id++) {
        Path image = clusterDir.resolve("disk-" + id + ".img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
          file.setLength(DISK_BYTES);
        }
        // No blocks reserved for root: the nodes run as root, and a reserve would let them write
        // on past what every other user sees as full.
        run("mkfs.ext4", "-q", "-F", "-m", "0", image.toString());
        Path data = Files.createDirectories(clusterDir.resolve("data-" + id));
        run("mount", "-o", "loop", image.toString(), data.toString());
        mounted.add(data);
        Files.deleteIfExists(data.resolve("lost+found"));
      }
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> unmount(mounted), "unmount-campaign-disks"));
      unavailable = Optional.empty();
      System.out.println("full-disk: data directories on loop-mounted ext4 disks " + mounted);
    } catch (IOException | RuntimeException e) {
      unmount(mounted);
      unavailable = Optional.of("cannot mount a disk per node (needs root, mkfs.ext4, loop): " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      unmount(mounted);
      unavailable = Optional.of("interrupted while mounting the disks");
    }
  }

  /** After the nodes stopped: unmounts what {@link #mountDisks} mounted. */
  void unmountDisks(Path clusterDir, int nodes) {
    if (unavailable.isPresent()) {
      return;
    }
    List<Path> data = new ArrayList<>();
    for (int id = 1; id <= nodes; id++) {
      data.add(clusterDir.resolve("data-" + id));
    }
    unmount(data);
    unavailable = Optional.of("the campaign ended");
  }

  private static void unmount(List<Path> mounts) {
    for (Path mount : mounts) {
      try {
        run("umount", "-l", mount.toString());
      } catch (IOException | RuntimeException e) {
        System.out.println("full-disk: could not unmount " + mount + ": " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Filler filler = new Filler(c.cluster.dir().resolve("data-" + target.node()).resolve(FILLER));
    return c.stopOnDiskFault(
        target, () -> "a full disk (" + (filler.fill() >> 20) + " MiB filled)", filler::remove);
  }

  /**
   * The file that fills a node's disk, and keeps it full until removed: blocks the node frees after
   * the disk filled up (a deleted topic's logs, a cleaned segment) are taken back within
   * milliseconds, as they would be by whatever filled a production disk. Without that, a node
   * deleting topics all the while (the {@code churn} workload) wrote on into what it freed and
   * never met the full disk.
   */
  private static final class Filler {
    private final Path file;
    private volatile boolean removed;
    private Thread keeper;

    Filler(Path file) {
      this.file = file;
    }

    /**
     * Takes every free block: reserves what the file system reports free, then writes until it
     * refuses (what is free changes while the nodes write), and goes on taking what is freed.
     * Returns the bytes taken at first.
     */
    long fill() throws IOException, InterruptedException {
      long free = Files.getFileStore(file.getParent()).getUsableSpace();
      if (free > 0) {
        try {
          run("fallocate", "-l", Long.toString(free), file.toString());
        } catch (IOException e) {
          // The nodes took some of it meanwhile: the writes below take the rest.
        }
      }
      FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      out.position(out.size());
      takeWhatIsFree(out);
      long taken = out.size();
      keeper =
          new Thread(
              () -> {
                try (out) {
                  while (!removed) {
                    takeWhatIsFree(out);
                    TimeUnit.MILLISECONDS.sleep(5);
                  }
                } catch (IOException | InterruptedException e) {
                  // Removed, or the file system went: nothing left to keep full.
                }
              },
              "keep-disk-full");
      keeper.setDaemon(true);
      keeper.start();
      return taken;
    }

    /** Writes zeros until the file system refuses them, a block at a time. */
    private static void takeWhatIsFree(FileChannel out) throws IOException {
      ByteBuffer zeros = ByteBuffer.allocate(4096);
      try {
        while (out.size() < DISK_BYTES) {
          zeros.clear();
          out.write(zeros);
        }
      } catch (IOException full) {
        if (!out.isOpen()) {
          throw full;
        }
        // No space left on the device: the disk is full.
      }
    }

    /** Stops keeping the disk full and deletes the file. */
    void remove() throws IOException, InterruptedException {
      removed = true;
      if (keeper != null) {
        keeper.join(10_000);
      }
      Files.deleteIfExists(file);
    }
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output.strip());
    }
  }
}
