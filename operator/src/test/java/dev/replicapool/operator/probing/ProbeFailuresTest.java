package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.vertx.core.VertxException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * One case per cause, each the exception (and the nesting) the Vert.x client fails a probe with;
 * the handshakes themselves are checked against real servers in HttpHealthCheckerTest and
 * ProbeCausesIT.
 */
class ProbeFailuresTest {

  private static ProbeFailures.Failure classify(Throwable t) {
    return ProbeFailures.classify(t);
  }

  /** How Netty hands a handshake failure up: an SSLHandshakeException in a DecoderException. */
  private static Throwable handshake(String message, Throwable certificateProblem) {
    SSLHandshakeException e = new SSLHandshakeException(message);
    e.initCause(certificateProblem);
    return new DecoderException(e);
  }

  @Test
  void aClosedPortIsConnectionRefused() {
    // Netty's AbstractChannel.AnnotatedConnectException is a ConnectException with this text.
    assertThat(classify(new ConnectException("Connection refused: /127.0.0.1:1")))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.REFUSED, "connection refused"));
  }

  @Test
  void aConnectTimeoutIsATimeoutNotARefusal() {
    var f =
        classify(new ConnectTimeoutException("connection timed out after 2000 ms: /10.1.1.1:80"));
    assertThat(f).isEqualTo(new ProbeFailures.Failure(ProbeCause.TIMEOUT, "connect timed out"));
  }

  @Test
  void unreachableMembers() {
    assertThat(classify(new NoRouteToHostException("No route to host")).cause())
        .isEqualTo(ProbeCause.UNREACHABLE);
    assertThat(classify(new UnknownHostException("gone.internal")))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.UNREACHABLE, "unknown host gone.internal"));
  }

  @Test
  void closesAndResetsBeforeAnAnswer() {
    assertThat(classify(new HttpClosedException("Connection was closed")))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.CLOSED, "connection closed"));
    assertThat(classify(new StreamResetException(8)))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.CLOSED, "stream reset (code 8)"));
    assertThat(classify(new IOException("Connection reset by peer")))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.CLOSED, "connection reset"));
  }

  @Test
  void aCertificateForAnotherName() {
    // What the JDK's hostname check throws under endpoint identification "HTTPS".
    Throwable t =
        handshake(
            "No subject alternative DNS name matching billing.internal found.",
            new CertificateException(
                "No subject alternative DNS name matching billing.internal found."));
    assertThat(classify(t))
        .isEqualTo(
            new ProbeFailures.Failure(ProbeCause.TLS_NAME, "TLS: certificate for another name"));
    assertThat(
            classify(
                    handshake(
                        "x",
                        new CertificateException(
                            "No subject alternative names matching IP address 10.0.0.1 found")))
                .cause())
        .isEqualTo(ProbeCause.TLS_NAME);
  }

  @Test
  void anExpiredCertificate() {
    CertificateExpiredException expired =
        new CertificateExpiredException("NotAfter: Thu Jan 01 00:00:00 UTC 2026");
    CertPathValidatorException validity =
        new CertPathValidatorException(
            "validity check failed",
            expired,
            null,
            -1,
            CertPathValidatorException.BasicReason.EXPIRED);
    Throwable t = handshake("PKIX path validation failed", validity);
    assertThat(classify(t))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.TLS_EXPIRED, "TLS: certificate expired"));
    // The reason alone, without the nested CertificateExpiredException, says it as well.
    assertThat(
            classify(
                    handshake(
                        "PKIX path validation failed",
                        new CertPathValidatorException(
                            "validity check failed",
                            null,
                            null,
                            -1,
                            CertPathValidatorException.BasicReason.EXPIRED)))
                .cause())
        .isEqualTo(ProbeCause.TLS_EXPIRED);
  }

  @Test
  void anUntrustedCertificate() {
    Throwable t =
        handshake(
            "PKIX path building failed",
            new CertificateException(
                "unable to find valid certification path to requested target"));
    assertThat(classify(t))
        .isEqualTo(
            new ProbeFailures.Failure(ProbeCause.TLS_UNTRUSTED, "TLS: untrusted certificate"));
    assertThat(
            classify(
                    handshake(
                        "PKIX path validation failed",
                        new CertPathValidatorException("signature check failed")))
                .cause())
        .isEqualTo(ProbeCause.TLS_UNTRUSTED);
  }

  @Test
  void anyOtherHandshakeFailureIsStillNamedTls() {
    var f = classify(new DecoderException(new SSLHandshakeException("Received fatal alert")));
    assertThat(f.cause()).isEqualTo(ProbeCause.TLS_HANDSHAKE);
    assertThat(f.message()).startsWith("TLS: ");
  }

  @Test
  void whatIsNotRecognisedKeepsItsOwnWords() {
    assertThat(classify(new VertxException("something odd", true)))
        .isEqualTo(new ProbeFailures.Failure(ProbeCause.OTHER, "something odd"));
    assertThat(classify(new IllegalStateException()).message()).isEqualTo("IllegalStateException");
  }
}
