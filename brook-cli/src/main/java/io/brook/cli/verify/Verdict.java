package io.brook.cli.verify;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a verification found: figures about the run (in insertion order) and every violation. The
 * command prints {@link #toTree} and exits 1 when there is a violation.
 */
public record Verdict(String check, Map<String, Object> figures, List<String> violations) {
  public Verdict {
    figures = new LinkedHashMap<>(figures);
    violations = List.copyOf(violations);
  }

  public boolean clean() {
    return violations.isEmpty();
  }

  /** The printed result: check, result, the figures, then the violations. */
  public Map<String, Object> toTree() {
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("check", check);
    tree.put("result", clean() ? "clean" : violations.size() + " violations");
    tree.putAll(figures);
    tree.put("violations", violations);
    return tree;
  }
}
