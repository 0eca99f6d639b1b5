package io.brook.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Named connection settings (bootstrap servers and a client properties file), kept in one
 * properties file, {@code profiles}, in Brook's config directory: {@code $BROOK_CONFIG_DIR} (or the
 * system property {@code brook.config.dir}), else {@code ~/.config/brook}.
 */
final class Profiles {

  /** A stored profile. {@code commandConfig} may be null. */
  record Profile(String name, String brokers, String commandConfig) {}

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final String CURRENT = "current";

  private final Path file;

  private Profiles(Path file) {
    this.file = file;
  }

  static Profiles load() {
    String dir = System.getProperty("brook.config.dir");
    if (dir == null || dir.isEmpty()) {
      dir = System.getenv("BROOK_CONFIG_DIR");
    }
    Path base =
        dir == null || dir.isEmpty()
            ? Path.of(System.getProperty("user.home"), ".config", "brook")
            : Path.of(dir);
    return new Profiles(base.resolve("profiles"));
  }

  Path file() {
    return file;
  }

  static void checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new CliException(
          "invalid profile name '" + name + "': use letters, digits, '.', '_' or '-'");
    }
  }

  Optional<Profile> get(String name) {
    Properties props = read();
    String brokers = props.getProperty(key(name, "brokers"));
    if (brokers == null) {
      return Optional.empty();
    }
    return Optional.of(new Profile(name, brokers, props.getProperty(key(name, "command-config"))));
  }

  /** The profile {@code profile use} selected, if any. */
  Optional<Profile> current() {
    String name = read().getProperty(CURRENT);
    return name == null ? Optional.empty() : get(name);
  }

  Optional<String> currentName() {
    return Optional.ofNullable(read().getProperty(CURRENT));
  }

  Map<String, Profile> all() {
    Properties props = read();
    TreeSet<String> names = new TreeSet<>();
    for (String key : props.stringPropertyNames()) {
      if (key.startsWith("profile.") && key.endsWith(".brokers")) {
        names.add(key.substring("profile.".length(), key.length() - ".brokers".length()));
      }
    }
    Map<String, Profile> out = new LinkedHashMap<>();
    for (String name : names) {
      get(name).ifPresent(p -> out.put(name, p));
    }
    return out;
  }

  void put(Profile profile, boolean makeCurrent) {
    checkName(profile.name());
    Properties props = read();
    props.setProperty(key(profile.name(), "brokers"), profile.brokers());
    if (profile.commandConfig() == null) {
      props.remove(key(profile.name(), "command-config"));
    } else {
      props.setProperty(key(profile.name(), "command-config"), profile.commandConfig());
    }
    if (makeCurrent || props.getProperty(CURRENT) == null) {
      props.setProperty(CURRENT, profile.name());
    }
    write(props);
  }

  void use(String name) {
    if (get(name).isEmpty()) {
      throw new CliException("no profile named '" + name + "' in " + file);
    }
    Properties props = read();
    props.setProperty(CURRENT, name);
    write(props);
  }

  void delete(String name) {
    Properties props = read();
    if (props.remove(key(name, "brokers")) == null) {
      throw new CliException("no profile named '" + name + "' in " + file);
    }
    props.remove(key(name, "command-config"));
    if (name.equals(props.getProperty(CURRENT))) {
      props.remove(CURRENT);
    }
    write(props);
  }

  private static String key(String name, String field) {
    return "profile." + name + "." + field;
  }

  private Properties read() {
    Properties props = new Properties();
    if (Files.exists(file)) {
      try (InputStream in = Files.newInputStream(file)) {
        props.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
    }
    return props;
  }

  /** Writes a temporary file and renames it, so a crash never leaves half a profiles file. */
  private void write(Properties props) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        props.store(out, "brook CLI profiles");
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
