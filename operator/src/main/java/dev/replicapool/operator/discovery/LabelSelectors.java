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
        if (e.getValue() == null || !e.getValue().equals(have.get(e.getKey()))) {
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
    if (r.getOperator() == null || r.getKey() == null) {
      return false; // reported by problems()
    }
    return switch (r.getOperator()) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> labels.containsKey(r.getKey());
      case "DoesNotExist" -> !labels.containsKey(r.getKey());
      default -> false;
    };
  }

  /**
   * What makes a selector unusable, as the API server would say it for a built-in resource: the CRD
   * schema cannot check a metav1.LabelSelector, so a pool may carry one that matches nothing for a
   * reason other than the Pods that exist. Empty when it is fine.
   */
  public static List<String> problems(LabelSelector selector) {
    if (selector == null || selector.getMatchExpressions() == null) {
      return List.of();
    }
    List<String> problems = new java.util.ArrayList<>();
    for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
      String where = "selector expression on key " + r.getKey();
      if (r.getKey() == null || r.getKey().isBlank()) {
        problems.add("selector expression without a key");
        continue;
      }
      List<String> values = r.getValues() == null ? List.of() : r.getValues();
      String op = r.getOperator();
      if ("In".equals(op) || "NotIn".equals(op)) {
        if (values.isEmpty()) {
          problems.add(where + ": operator " + op + " needs at least one value");
        }
      } else if ("Exists".equals(op) || "DoesNotExist".equals(op)) {
        if (!values.isEmpty()) {
          problems.add(where + ": operator " + op + " takes no values");
        }
      } else {
        problems.add(where + ": operator " + op + " is not one of In, NotIn, Exists, DoesNotExist");
      }
    }
    return problems;
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
