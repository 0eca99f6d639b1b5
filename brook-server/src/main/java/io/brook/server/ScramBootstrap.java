package io.brook.server;

import io.brook.controller.state.ScramControl;
import io.brook.metadata.record.UserScramCredentialRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The SCRAM users of {@code brook.sasl.scram.bootstrap.credentials}, in the form of {@code
 * kafka-storage format --add-scram}: {@code SCRAM-SHA-256=[name=alice,password=secret]}, optionally
 * with {@code iterations=N} (default 4096), several separated by spaces. The first active
 * controller writes them with the cluster id, so a new cluster can be logged into at all.
 */
final class ScramBootstrap {
  static final String KEY = "brook.sasl.scram.bootstrap.credentials";
  private static final Pattern ENTRY =
      Pattern.compile("\\s*(SCRAM-SHA-(?:256|512))=\\[([^\\]]*)\\]");
  private static final int DEFAULT_ITERATIONS = 4096;

  private ScramBootstrap() {}

  /** Parses the config and derives each credential (PBKDF2: call at start-up, off event loops). */
  static List<UserScramCredentialRecord> records(String value) {
    List<UserScramCredentialRecord> records = new ArrayList<>();
    if (value == null || value.isBlank()) {
      return records;
    }
    Matcher m = ENTRY.matcher(value);
    int end = 0;
    while (m.find()) {
      if (!value.substring(end, m.start()).isBlank()) {
        throw new ConfigException(KEY, value, "expected SCRAM-SHA-256=[name=...,password=...]");
      }
      end = m.end();
      Map<String, String> fields = new LinkedHashMap<>();
      for (String field : m.group(2).split(",")) {
        int eq = field.indexOf('=');
        if (eq <= 0) {
          throw new ConfigException(KEY, value, "expected key=value, was " + field);
        }
        fields.put(field.substring(0, eq).trim(), field.substring(eq + 1).trim());
      }
      String name = fields.get("name");
      String password = fields.get("password");
      if (name == null || name.isEmpty() || password == null) {
        throw new ConfigException(KEY, value, "each entry needs name and password");
      }
      ScramMechanism mechanism = ScramMechanism.forMechanismName(m.group(1));
      int iterations;
      try {
        iterations = Integer.parseInt(fields.getOrDefault("iterations", "" + DEFAULT_ITERATIONS));
      } catch (NumberFormatException e) {
        throw new ConfigException(KEY, value, "iterations is not a number");
      }
      if (iterations < mechanism.minIterations() || iterations > mechanism.maxIterations()) {
        throw new ConfigException(
            KEY,
            value,
            "iterations must be between "
                + mechanism.minIterations()
                + " and "
                + mechanism.maxIterations());
      }
      records.add(ScramControl.fromPassword(name, mechanism, password, iterations));
    }
    if (!value.substring(end).isBlank()) {
      throw new ConfigException(KEY, value, "expected SCRAM-SHA-256=[name=...,password=...]");
    }
    return records;
  }
}
