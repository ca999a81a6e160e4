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

  public LoadReport {
    namedMetrics = Map.copyOf(namedMetrics);
  }

  /**
   * The utilization a balancer weighs: the application's own figure when it gives one, else the
   * CPU's (gRFC A58, weighted round robin, reads them the same way).
   */
  public double utilization() {
    return applicationUtilization > 0 ? applicationUtilization : cpuUtilization;
  }
}
