package io.brook.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code brook completion}: a bash (and zsh) completion script for every command and option. */
@Command(
    name = "completion",
    description = "Print a bash/zsh completion script: source <(bin/brook completion)")
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getOut().print(AutoComplete.bash("brook", spec.root().commandLine()));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
