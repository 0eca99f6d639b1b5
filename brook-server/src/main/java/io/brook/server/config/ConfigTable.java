package io.brook.server.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigException;

/**
 * Collects broker config definitions: a {@link ConfigDef} plus, for each name, the area it is
 * documented under and whether Brook acts on it today. Each {@code *Settings} class fills one or
 * more areas through a {@link Section}.
 */
final class ConfigTable {

  private final ConfigDef def = new ConfigDef();
  private final Map<String, ConfigArea> areas = new LinkedHashMap<>();
  private final Set<String> used = new TreeSet<>();

  Section section(ConfigArea area) {
    return new Section(area);
  }

  ConfigDef def() {
    return def;
  }

  Map<String, ConfigArea> areas() {
    return Collections.unmodifiableMap(areas);
  }

  Set<String> used() {
    return Collections.unmodifiableSet(used);
  }

  /** Wraps a validator so that an unset value (null default) passes. */
  static Validator optional(Validator validator) {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          if (value != null) {
            validator.ensureValid(name, value);
          }
        },
        validator::toString);
  }

  /** Accepts any value; used where Kafka has no validator but {@code null} must still pass. */
  static final Validator ANY = null;

  /** Rejects an empty or blank string; an unset value (null) passes. */
  static Validator nonEmptyIfSet() {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          if (value != null && value.toString().trim().isEmpty()) {
            throw new ConfigException(name, value, "must not be empty when set");
          }
        },
        () -> "non-empty string");
  }

  /** Definitions for one area. */
  final class Section {
    private final ConfigArea area;

    private Section(ConfigArea area) {
      this.area = area;
    }

    /** A config Brook acts on today. */
    Section uses(
        String name,
        Type type,
        Object defaultValue,
        Validator validator,
        Importance importance,
        String doc) {
      used.add(name);
      return accepts(name, type, defaultValue, validator, importance, doc);
    }

    /** A config Brook accepts, validates and reports, but does not act on yet. */
    Section accepts(
        String name,
        Type type,
        Object defaultValue,
        Validator validator,
        Importance importance,
        String doc) {
      if (areas.putIfAbsent(name, area) != null) {
        throw new IllegalStateException("Broker config defined twice: " + name);
      }
      def.define(name, type, defaultValue, validator, importance, doc);
      return this;
    }
  }
}
