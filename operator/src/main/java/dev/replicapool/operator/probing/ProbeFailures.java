package dev.replicapool.operator.probing;

import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * Turns the exception a Vert.x or Netty client failed with into a {@link ProbeCause} and the words
 * a member's status message shows ("connection refused", "TLS: certificate expired"). Plain Java:
 * it only walks the exception's causes, where the JDK and Netty nest what actually went wrong (a
 * certificate check inside an SSLHandshakeException inside a DecoderException).
 */
final class ProbeFailures {
  /** Enough for the deepest nesting seen (Netty, SSLEngine, PKIX); guards against cycles. */
  private static final int MAX_DEPTH = 12;

  private ProbeFailures() {}

  /** A failure: its cause and the message that names it. */
  record Failure(ProbeCause cause, String message) {}

  static Failure classify(Throwable failure) {
    Failure tls = tls(failure);
    if (tls != null) {
      return tls;
    }
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_DEPTH; t = t.getCause(), depth++) {
      // Netty's connect timeout is a ConnectException too: before "refused".
      if (t instanceof ConnectTimeoutException) {
        return new Failure(ProbeCause.TIMEOUT, "connect timed out");
      }
      if (t instanceof NoRouteToHostException) {
        return new Failure(ProbeCause.UNREACHABLE, "no route to host");
      }
      if (t instanceof UnknownHostException) {
        return new Failure(ProbeCause.UNREACHABLE, "unknown host " + t.getMessage());
      }
      if (t instanceof ConnectException) {
        return lower(t).contains("refused")
            ? new Failure(ProbeCause.REFUSED, "connection refused")
            : new Failure(ProbeCause.OTHER, "connect failed: " + describe(t));
      }
      if (t instanceof StreamResetException reset) {
        return new Failure(ProbeCause.CLOSED, "stream reset (code " + reset.getCode() + ")");
      }
      if (t instanceof HttpClosedException || t instanceof ClosedChannelException) {
        return new Failure(ProbeCause.CLOSED, "connection closed");
      }
      if (t instanceof IOException && lower(t).contains("reset")) {
        return new Failure(ProbeCause.CLOSED, "connection reset");
      }
    }
    return new Failure(ProbeCause.OTHER, describe(failure));
  }

  /** A TLS failure, the certificate's fault first; null when the failure is not about TLS. */
  private static Failure tls(Throwable failure) {
    boolean sslSeen = false;
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_DEPTH; t = t.getCause(), depth++) {
      if (t instanceof CertificateExpiredException) {
        return new Failure(ProbeCause.TLS_EXPIRED, "TLS: certificate expired");
      }
      if (t instanceof CertificateNotYetValidException) {
        return new Failure(ProbeCause.TLS_EXPIRED, "TLS: certificate not valid yet");
      }
      if (t instanceof CertPathValidatorException v
          && v.getReason() == CertPathValidatorException.BasicReason.EXPIRED) {
        return new Failure(ProbeCause.TLS_EXPIRED, "TLS: certificate expired");
      }
      if (t instanceof CertPathValidatorException v
          && v.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
        return new Failure(ProbeCause.TLS_EXPIRED, "TLS: certificate not valid yet");
      }
      String m = lower(t);
      // The JDK's hostname check (HostnameChecker): "No subject alternative DNS name matching x
      // found", "No subject alternative names matching IP address x found", "No name matching x".
      if (m.contains("no subject alternative") || m.contains("no name matching")) {
        return new Failure(ProbeCause.TLS_NAME, "TLS: certificate for another name");
      }
      if (t instanceof CertPathBuilderException
          || t instanceof CertPathValidatorException
          || m.contains("unable to find valid certification path")) {
        return new Failure(ProbeCause.TLS_UNTRUSTED, "TLS: untrusted certificate");
      }
      sslSeen |= t instanceof SSLException;
    }
    return sslSeen ? new Failure(ProbeCause.TLS_HANDSHAKE, "TLS: " + describe(failure)) : null;
  }

  private static String lower(Throwable t) {
    return t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
  }

  /** The exception's own message, else its class. */
  static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }
}
