package dev.replicapool.controlplane.load;

import java.util.Map;

/**
 * What a member said of its own load in one answer: the fields of ORCA's {@code OrcaLoadReport}
 * (xds.data.orca.v3) that a balancer reads. Utilizations are fractions of the member's capacity
 * (above 1 past its soft limits); rates are per second.
 */
public record LoadReport(
    double applicationUtilization,
    double cpuUtilization,
    double memUtilization,
    double rpsFractional,
    double eps,
    Map<String, Double> namedMetrics) {

  /**
   * The named metric in which a member says how many requests it holds, in service and waiting,
   * every client's ({@code named_metrics.in_flight}): what a balancer's own in-flight count cannot
   * see of the member's other clients (Prequal's requests-in-flight).
   */
  public static final String IN_FLIGHT = "in_flight";

  public LoadReport {
    namedMetrics = Map.copyOf(namedMetrics);
  }

  /** The requests the member said it holds ({@link #IN_FLIGHT}); NaN when it did not say. */
  public double inFlight() {
    Double n = namedMetrics.get(IN_FLIGHT);
    return n == null ? Double.NaN : n;
  }

  /**
   * The utilization a balancer weighs: the application's own figure when it gives one, else the
   * CPU's (gRFC A58, weighted round robin, reads them the same way).
   */
  public double utilization() {
    return applicationUtilization > 0 ? applicationUtilization : cpuUtilization;
  }
}
