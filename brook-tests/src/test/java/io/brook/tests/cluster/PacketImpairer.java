package io.brook.tests.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Degrades the link of one node's network namespace as a {@link LinkImpairment} says, with
 * netfilter and one small program: iptables rules queue every packet the node sends or receives
 * (loopback aside) to {@code packet_impairer.py} (a test resource, Python's standard library only)
 * running in the namespace, which lets each go after its delay or drops it; rules with the TEE
 * target send a share of what the node sends to each peer twice. The packets are real and the
 * kernel's TCP recovers from what happens to them. The queue rules carry {@code --queue-bypass}: if
 * the program dies, packets pass, so a link never stays cut by accident.
 */
final class PacketImpairer {
  private static final Pattern COUNTS =
      Pattern.compile("queued (\\d+) dropped (\\d+) released (\\d+) reordered (\\d+)");
  private static final long READY_TIMEOUT_SECONDS = 20;
  private static Path script;
  private static String python;

  private final List<String> inNamespace;
  private final Process program;
  private final BlockingQueue<String> output = new ArrayBlockingQueue<>(64);
  private boolean stopped;

  private PacketImpairer(List<String> inNamespace, Process program) {
    this.inNamespace = inNamespace;
    this.program = program;
  }

  /**
   * Starts impairing the namespace's link: the program first (so no packet waits for a queue nobody
   * reads), then the rules. {@code peers} are the addresses the node talks to, for the duplicating
   * rules; {@code seed} makes the program's choices repeatable.
   */
  static PacketImpairer start(
      List<String> inNamespace, List<String> peers, LinkImpairment impairment, long seed) {
    List<String> command = new ArrayList<>(inNamespace);
    command.addAll(
        List.of(
            pythonBinary(),
            script().toString(),
            "--queue",
            "0",
            "--delay-ms",
            Integer.toString(impairment.delayMillis()),
            "--jitter-ms",
            Integer.toString(impairment.jitterMillis()),
            "--drop-percent",
            Integer.toString(impairment.dropPercent()),
            "--seed",
            Long.toString(seed)));
    Process program;
    try {
      program = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    PacketImpairer impairer = new PacketImpairer(inNamespace, program);
    try {
      impairer.readOutput();
      String first = impairer.output.poll(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (!"ready".equals(first)) {
        program.destroyForcibly();
        throw new IllegalStateException(
            "packet_impairer.py did not start: "
                + (first == null ? "no answer in " + READY_TIMEOUT_SECONDS + " s" : first)
                + " "
                + String.join(" ", impairer.output));
      }
      impairer.iptables(
          "-A", "INPUT", "!", "-i", "lo", "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass");
      impairer.iptables(
          "-A", "OUTPUT", "!", "-o", "lo", "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass");
      if (impairment.duplicatePercent() > 0) {
        String probability = Double.toString(impairment.duplicatePercent() / 100.0);
        for (String peer : peers) {
          impairer.iptables(
              "-t",
              "mangle",
              "-A",
              "OUTPUT",
              "-d",
              peer,
              "-m",
              "statistic",
              "--mode",
              "random",
              "--probability",
              probability,
              "-j",
              "TEE",
              "--gateway",
              peer);
        }
      }
      return impairer;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      impairer.stopQuietly();
      throw new IllegalStateException(e);
    } catch (RuntimeException e) {
      impairer.stopQuietly();
      throw e;
    }
  }

  /**
   * Removes the rules, then lets the program release what it holds and exit. Returns what the
   * impairment did. Idempotent (a second call returns zeros).
   */
  synchronized LinkImpairment.Effect stop() {
    if (stopped) {
      return LinkImpairment.Effect.NONE;
    }
    stopped = true;
    long duplicated;
    try {
      duplicated = teeCount(iptables("-t", "mangle", "-L", "OUTPUT", "-v", "-n", "-x"));
      // The node's namespace holds no rules but these, so whole chains are flushed.
      iptables("-F", "INPUT");
      iptables("-F", "OUTPUT");
      iptables("-t", "mangle", "-F", "OUTPUT");
    } finally {
      // SIGTERM: the program releases every packet it holds, prints its counts and exits. Through
      // the handle: Process.destroy would also close the pipe the counts come through.
      program.toHandle().destroy();
    }
    try {
      if (!program.waitFor(20, TimeUnit.SECONDS)) {
        program.destroyForcibly();
        throw new IllegalStateException("packet_impairer.py did not exit within 20 s of SIGTERM");
      }
      // The reader thread hands over the last line once it sees the end of the output.
      String line;
      Matcher counts = null;
      List<String> seen = new ArrayList<>();
      while ((line = output.poll(5, TimeUnit.SECONDS)) != null) {
        seen.add(line);
        Matcher m = COUNTS.matcher(line);
        if (m.find()) {
          counts = m;
          break;
        }
      }
      if (counts == null) {
        throw new IllegalStateException(
            "packet_impairer.py exited with "
                + program.exitValue()
                + " without its counts: "
                + String.join(" | ", seen));
      }
      return new LinkImpairment.Effect(
          Long.parseLong(counts.group(1)),
          Long.parseLong(counts.group(2)),
          Long.parseLong(counts.group(4)),
          duplicated);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      program.destroyForcibly();
      throw new IllegalStateException(e);
    }
  }

  /** {@link #stop} for cleanup paths: errors are printed, not thrown, and the program is gone. */
  void stopQuietly() {
    try {
      stop();
    } catch (RuntimeException e) {
      System.err.println("Cannot stop a packet impairer cleanly: " + e.getMessage());
    } finally {
      program.destroyForcibly();
    }
  }

  /** Packets the TEE rules duplicated: the first column of their lines in a verbose listing. */
  private static long teeCount(String listing) {
    long total = 0;
    for (String line : listing.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (line.contains("TEE") && fields[0].matches("\\d+")) {
        total += Long.parseLong(fields[0]);
      }
    }
    return total;
  }

  private String iptables(String... args) {
    List<String> command = new ArrayList<>(inNamespace);
    command.add(iptablesBinary());
    command.add("-w");
    command.addAll(List.of(args));
    return NetworkNamespaces.run(command.toArray(String[]::new));
  }

  /** Hands the program's lines to {@link #output}, on a daemon thread, until it exits. */
  private void readOutput() {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(program.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  if (!output.offer(line)) {
                    output.poll(); // bounded: keep the newest lines, which carry the counts
                    output.offer(line);
                  }
                }
              } catch (IOException e) {
                // The process is gone; stop() reports what is missing.
              }
            },
            "packet-impairer-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Why this machine cannot impair links (beyond network namespaces), or null if it can. */
  static String missingTool() {
    if (iptablesBinary() == null) {
      return "impaired links need iptables (Debian's iptables package), which is not installed";
    }
    if (pythonBinary() == null) {
      return "impaired links need python3, which is not on the PATH";
    }
    return null;
  }

  /** The program, copied once per JVM out of the test resources into a temporary file. */
  private static synchronized Path script() {
    if (script == null) {
      try (InputStream in = PacketImpairer.class.getResourceAsStream("packet_impairer.py")) {
        if (in == null) {
          throw new IllegalStateException("packet_impairer.py is missing from the test resources");
        }
        Path copy = Files.createTempFile("brook-packet-impairer-", ".py");
        copy.toFile().deleteOnExit();
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        script = copy;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return script;
  }

  static String iptablesBinary() {
    return firstExecutable(List.of("/usr/sbin/iptables", "/sbin/iptables", "/usr/bin/iptables"));
  }

  /**
   * The python3 interpreter itself, resolved once: a launcher on the PATH (pyenv's shim is a shell
   * script) would take the SIGTERM that {@link #stop} sends and leave the program running.
   */
  static synchronized String pythonBinary() {
    if (python == null) {
      List<String> candidates = new ArrayList<>();
      for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
        if (!dir.isEmpty()) {
          candidates.add(dir + "/python3");
        }
      }
      candidates.add("/usr/bin/python3");
      String launcher = firstExecutable(candidates);
      if (launcher == null) {
        return null;
      }
      String resolved =
          NetworkNamespaces.run(launcher, "-c", "import sys; print(sys.executable)").trim();
      python = resolved.isEmpty() ? launcher : resolved;
    }
    return python;
  }

  private static String firstExecutable(List<String> candidates) {
    for (String candidate : candidates) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return null;
  }
}
