package dev.replicapool.operator.discovery;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Matches labels against a metav1.LabelSelector the way the API server does. */
public final class LabelSelectors {
  private LabelSelectors() {}

  /** An empty selector matches everything; a null selector matches nothing. */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (var e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(have.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!matches(r, have)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean matches(LabelSelectorRequirement r, Map<String, String> labels) {
    String value = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> labels.containsKey(r.getKey());
      case "DoesNotExist" -> !labels.containsKey(r.getKey());
      default -> false;
    };
  }

  /** The selector in kubectl's -l syntax, for messages. */
  public static String describe(LabelSelector selector) {
    if (selector == null) {
      return "<none>";
    }
    String labels =
        selector.getMatchLabels() == null
            ? ""
            : selector.getMatchLabels().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .sorted()
                .collect(Collectors.joining(","));
    String exprs =
        selector.getMatchExpressions() == null
            ? ""
            : selector.getMatchExpressions().stream()
                .map(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues())
                .collect(Collectors.joining(","));
    String all = labels.isEmpty() ? exprs : exprs.isEmpty() ? labels : labels + "," + exprs;
    return all.isEmpty() ? "<everything>" : all;
  }
}
