package io.brook.tests.cluster.eos;

import static org.awaitility.Awaitility.await;

import io.brook.tests.ChildProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Supervises {@link SettlementApp} in a child JVM: starts it, starts a new instance whenever one
 * exits (crashed, fenced, or killed by the test) and can SIGKILL the running one. Every instance's
 * output is appended to one log file for the post-mortem.
 */
final class SettlementProcess implements AutoCloseable {
  private final List<String> command;
  private final Path log;
  private final Thread supervisor;
  private final AtomicInteger starts = new AtomicInteger();
  private volatile Process current;
  private volatile boolean running = true;

  SettlementProcess(
      Path log, String bootstrap, String input, String output, String group, String id) {
    this.command =
        ChildProcess.javaCommand(
            SettlementApp.class.getName(), bootstrap, input, output, group, id, "100");
    this.log = log;
    this.supervisor = new Thread(this::supervise, "settlement-supervisor");
    supervisor.setDaemon(true);
    supervisor.start();
  }

  private void supervise() {
    while (true) {
      Process process;
      try {
        process = startInstance();
      } catch (IOException e) {
        throw new IllegalStateException("starting " + command, e);
      }
      if (process == null) {
        return;
      }
      try {
        int exit = process.waitFor();
        Files.writeString(
            log, "--- instance exited with " + exit + "\n", StandardOpenOption.APPEND);
        // An instance that cannot even start (bad arguments) must not spin the supervisor.
        Thread.sleep(100);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        return;
      } catch (IOException e) {
        // The log is for the post-mortem only.
      }
    }
  }

  /** Starts the next instance, or returns null once closed; atomic with {@link #close}. */
  private synchronized Process startInstance() throws IOException {
    if (!running) {
      return null;
    }
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    starts.incrementAndGet();
    current = process;
    return process;
  }

  /** SIGKILLs the running instance; the supervisor starts the next one. */
  void kill() throws InterruptedException {
    Process process = current;
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * SIGKILLs the running instance while it holds a transaction open (its outputs written, its
   * commit not yet sent), so the next instance must abort what it left.
   */
  void killMidTransaction() throws Exception {
    await("the application holding a transaction open")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(5))
        .until(this::lastLineOpensTransaction);
    kill();
  }

  private boolean lastLineOpensTransaction() throws IOException {
    List<String> lines = Files.readAllLines(log);
    for (int i = lines.size() - 1; i >= 0; i--) {
      String line = lines.get(i);
      if (line.startsWith("open ")) {
        return true;
      }
      if (line.startsWith("committed ") || line.startsWith("started")) {
        return false;
      }
    }
    return false;
  }

  /** How many instances have been started. */
  int starts() {
    return starts.get();
  }

  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      running = false;
    }
    kill();
    supervisor.interrupt();
    supervisor.join(10_000);
  }
}
