package io.brook.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code brook profile create|list|use|delete}: named connection settings. */
@Command(
    name = "profile",
    description =
        "Named connection settings, in $BROOK_CONFIG_DIR/profiles (default ~/.config/brook).",
    subcommands = {
      ProfileCommand.Create.class,
      ProfileCommand.ListProfiles.class,
      ProfileCommand.Use.class,
      ProfileCommand.Delete.class
    })
final class ProfileCommand {

  private static Map<String, Object> row(Profiles.Profile p, Optional<String> current) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("name", p.name());
    row.put("brokers", p.brokers());
    row.put("command_config", p.commandConfig());
    row.put("current", current.map(p.name()::equals).orElse(false));
    return row;
  }

  @Command(
      name = "create",
      description = "Create or replace a profile; the first one becomes the current profile.")
  static final class Create implements Callable<Integer> {
    @Mixin FormatOption output;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--brokers", required = true, paramLabel = "HOST:PORT[,...]")
    String brokers;

    @Option(
        names = "--command-config",
        paramLabel = "FILE",
        description = "Kafka client properties for this cluster (stored as an absolute path).")
    Path commandConfig;

    @Option(names = "--use", description = "Make it the current profile.")
    boolean use;

    @Override
    public Integer call() {
      Profiles profiles = Profiles.load();
      Profiles.Profile p =
          new Profiles.Profile(
              name,
              brokers,
              commandConfig == null ? null : commandConfig.toAbsolutePath().toString());
      profiles.put(p, use);
      output.print(spec.commandLine().getOut(), row(p, profiles.currentName()));
      return 0;
    }
  }

  @Command(name = "list", description = "List profiles.")
  static final class ListProfiles implements Callable<Integer> {
    @Mixin FormatOption output;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      Profiles profiles = Profiles.load();
      Optional<String> current = profiles.currentName();
      List<Map<String, Object>> rows = new ArrayList<>();
      profiles.all().values().forEach(p -> rows.add(row(p, current)));
      output.print(spec.commandLine().getOut(), rows);
      return 0;
    }
  }

  @Command(name = "use", description = "Make a profile the current one.")
  static final class Use implements Callable<Integer> {
    @Mixin FormatOption output;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() {
      Profiles profiles = Profiles.load();
      profiles.use(name);
      output.print(spec.commandLine().getOut(), Map.of("current", name));
      return 0;
    }
  }

  @Command(name = "delete", description = "Delete a profile.")
  static final class Delete implements Callable<Integer> {
    @Mixin FormatOption output;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() {
      Profiles.load().delete(name);
      output.print(spec.commandLine().getOut(), Map.of("deleted", name));
      return 0;
    }
  }
}
