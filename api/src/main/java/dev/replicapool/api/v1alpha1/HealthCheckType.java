package dev.replicapool.api.v1alpha1;

/** How a member is probed. */
public enum HealthCheckType {
  /** An HTTP GET of healthCheck.path; passes on one of healthCheck.expectedStatuses. */
  HTTP,
  /** grpc.health.v1.Health/Check over HTTP/2; passes on SERVING only. */
  GRPC,
  /** A TCP connect; passes when the connection is established within the timeout. */
  TCP
}
