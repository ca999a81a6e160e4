package dev.replicapool.operator.health;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/** Number formatting for reasons and messages: locale-independent, no float noise. */
final class Fmt {
  private Fmt() {}

  /** Shortest decimal form with at least one decimal: 2.0, 0.05, 0.5, 1.25. */
  static String num(double value) {
    BigDecimal d = BigDecimal.valueOf(value).stripTrailingZeros();
    if (d.scale() < 1) {
      d = d.setScale(1, RoundingMode.UNNECESSARY);
    }
    return d.toPlainString();
  }

  /**
   * {@code value} with as many decimals as {@code reference} shows, and at least two; more when
   * needed to tell them apart, so that a message never reads "0.05 > 0.05".
   */
  static String like(double value, double reference) {
    int decimals = Math.max(2, num(reference).length() - num(reference).indexOf('.') - 1);
    String v = String.format(Locale.ROOT, "%." + decimals + "f", value);
    while (value != reference
        && decimals < 6
        && v.equals(String.format(Locale.ROOT, "%." + decimals + "f", reference))) {
      decimals++;
      v = String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
    return v;
  }

  /** "1 probe failed", "3 probes failed in a row". */
  static String failures(int n) {
    return n == 1 ? "1 probe failed" : n + " probes failed in a row";
  }

  /** "1 probe passed", "3 probes passed in a row". */
  static String passes(int n) {
    return n == 1 ? "1 probe passed" : n + " probes passed in a row";
  }

  /** Rounds half-up on the exact binary value (so 256.945 as a double, 256.9449..., is 256.94). */
  static double round(double value, int decimals) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return value;
    }
    return new BigDecimal(value).setScale(decimals, RoundingMode.HALF_UP).doubleValue();
  }
}
