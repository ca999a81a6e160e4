/**
 * The control-plane stream between operator and data planes, modelled on xDS: the operator sends
 * one full {@link dev.replicapool.api.wire.PoolSnapshot} per pool with a version that only grows;
 * the data plane applies it atomically and answers with an ACK or a NACK carrying the version.
 * Messages are JSON text frames of a WebSocket on the operator's control-plane port.
 */
package dev.replicapool.api.wire;
