package dev.replicapool.dataplane;

import dev.replicapool.cli.CommandLineException;
import dev.replicapool.cli.FlagParser;
import dev.replicapool.cli.ParsedFlags;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.accesslog.AccessLogConfig;
import dev.replicapool.dataplane.accesslog.AccessLogFormat;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.tracing.TracingConfig;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command line of the data plane. Every flag {@code --some-flag} can also come from the environment
 * as {@code REPLICAPOOL_SOME_FLAG}; a flag wins over the environment. This class reads the ports,
 * limits and timeouts; {@link ControlPlaneArgs} the connection to the operator.
 */
public final class DataPlaneArgs {
  static final String USAGE =
      """
      usage: java -jar replicapool-dataplane.jar [flags]
        --control-plane HOST:PORT       the operator's control-plane stream (required)
        --token-file PATH               file holding the control-plane token (required)
        --control-plane-ca PATH         PEM CA of the operator's TLS certificate (TLS on when set)
        --control-plane-cert PATH       PEM client certificate for an operator that requires one
        --control-plane-key PATH        (--client-ca, mutual TLS) and its key; both or neither,
                                        and only with --control-plane-ca
        --node NAME                     this data plane's name (default: $NODE_NAME or $HOSTNAME)
        --group NAME                    data-plane group served: only pools listing it in
                                        spec.dataPlaneGroups arrive (default: the client
                                        certificate's group, else "default")
        --listen [HOST:]PORT            shared plain traffic port (default 0.0.0.0:8080)
        --tls-listen [HOST:]PORT|off    shared TLS traffic port (default 8443; opened while a pool has TLS)
        --admin-port [HOST:]PORT        /status /metrics /healthz /readyz (default 0.0.0.0:9901)
        --max-initial-line BYTES        longer request lines get 414 (default 4096)
        --max-header-bytes BYTES        larger headers get 431 (default 8192)
        --max-body-bytes BYTES          larger bodies get 413 (default 10485760)
        --upstream-connect-timeout-ms N connect timeout to members (default 1000)
        --upstream-timeout-ms N         a member silent this long mid-request gets 504 (default 30000)
        --request-header-timeout-ms N   a connection must complete its first request header in this
                                        long, or it is closed (slowloris; default 10000, 0 off)
        --client-idle-timeout-seconds N idle client connections are closed after this (default 120)
        --h2c on|off                    plain-text ports also take HTTP/2 with prior knowledge
                                        (default on; off lets the header timeout bound the first
                                        request of a connection too)
        --max-client-connections N      client connections open at once, all traffic ports together;
                                        one more is closed at once (default 10000, 0 no limit)
        --drain-seconds N               on SIGTERM, in-flight requests get this long (default 10)
        --warm-up-seconds N             after starting, send requests through a copy of the data
                                        plane on loopback for this long before /readyz says ready,
                                        so that the JIT has compiled the request paths when
                                        traffic comes (default 0: off)
        --instances N                   event loops serving each port (default: CPU count)
        --access-log stdout|PATH|off    one line per request to standard output or appended to
                                        PATH (default off); which pools: --access-log-pools
        --access-log-format json|text   JSON lines or a short text line (default json)
        --access-log-pools spec|all     spec: pools whose spec.accessLog.enabled is true; all:
                                        every pool and unrouted requests (default spec)
        --access-log-query on|off       keep the query string in logged paths (default off)
        --access-log-queue N            lines waiting for the writer; more are dropped and
                                        counted (default 8192)
        --otlp-endpoint URL|off         take part in W3C traces: a span per request and per try,
                                        sent by OTLP/HTTP to URL (its /v1/traces; default off:
                                        traceparent passes through unchanged)
        --trace-sampling RATIO          share of new traces recorded, 0 to 1 (default 0.01); a
                                        client's sampled traceparent is always followed
        --trace-queue N                 spans waiting for export; more are dropped (default 2048)
      Each flag may be given as an environment variable: --token-file -> REPLICAPOOL_TOKEN_FILE.
      """;

  private static final List<String> FLAGS =
      List.of(
          "control-plane",
          "token-file",
          "control-plane-ca",
          "control-plane-cert",
          "control-plane-key",
          "node",
          "group",
          "listen",
          "tls-listen",
          "admin-port",
          "max-initial-line",
          "max-header-bytes",
          "max-body-bytes",
          "upstream-connect-timeout-ms",
          "upstream-timeout-ms",
          "request-header-timeout-ms",
          "client-idle-timeout-seconds",
          "h2c",
          "max-client-connections",
          "drain-seconds",
          "warm-up-seconds",
          "instances",
          "access-log",
          "access-log-format",
          "access-log-pools",
          "access-log-query",
          "access-log-queue",
          "otlp-endpoint",
          "trace-sampling",
          "trace-queue");

  private static final FlagParser PARSER =
      FlagParser.of(FLAGS, List.of())
          .withHelpWords("-h", "--help")
          .withEnvironment("REPLICAPOOL_")
          .withLaterRepeatWinning();

  private DataPlaneArgs() {}

  /** A command line that cannot work; the message says why. */
  public static final class UsageException extends Exception {
    public UsageException(String message) {
      super(message);
    }
  }

  public static DataPlane.Config parse(String[] args, Map<String, String> env)
      throws UsageException {
    Map<String, String> values = values(args, env);
    ControlPlaneClient.Options cpo = ControlPlaneArgs.options(values, env);

    HostPort listen = hostPort("listen", values.getOrDefault("listen", "8080"), "0.0.0.0", 8080);
    String tlsValue = values.getOrDefault("tls-listen", "8443");
    int tlsPort =
        tlsValue.equalsIgnoreCase("off")
            ? -1
            : hostPort("tls-listen", tlsValue, listen.host(), 8443).port();
    HostPort admin =
        hostPort("admin-port", values.getOrDefault("admin-port", "9901"), "0.0.0.0", 9901);
    // Each step reads its defaults from fields that no earlier step sets.
    ProxySettings proxy =
        ProxySettings.defaults().withListen(listen.host(), listen.port(), tlsPort);
    proxy = withConnectionSettings(withTimeouts(withLimits(proxy, values), values), values);
    return new DataPlane.Config(
        cpo, proxy, admin.host(), admin.port(), accessLog(values), tracing(values));
  }

  /** The flags of {@code args}, each absent one from {@code env}; help as an empty message. */
  private static Map<String, String> values(String[] args, Map<String, String> env)
      throws UsageException {
    ParsedFlags parsed;
    try {
      parsed = PARSER.parse(args, env);
    } catch (CommandLineException e) {
      throw new UsageException(e.getMessage());
    }
    if (parsed.help()) {
      throw new UsageException("");
    }
    return parsed.values();
  }

  private static ProxySettings withLimits(ProxySettings p, Map<String, String> values)
      throws UsageException {
    return p.withLimits(
        (int) number(values, "max-initial-line", p.maxInitialLineLength(), 256, 1 << 20),
        (int) number(values, "max-header-bytes", p.maxHeaderSize(), 1024, 1 << 22),
        number(values, "max-body-bytes", p.maxBodyBytes(), 0, Long.MAX_VALUE));
  }

  private static ProxySettings withTimeouts(ProxySettings p, Map<String, String> values)
      throws UsageException {
    return p.withUpstreamTimeouts(
            (int)
                number(
                    values,
                    "upstream-connect-timeout-ms",
                    p.upstreamConnectTimeoutMillis(),
                    1,
                    600_000),
            number(values, "upstream-timeout-ms", p.upstreamIdleTimeoutMillis(), 1, 86_400_000))
        .withClientTimeouts(
            (int)
                number(
                    values, "client-idle-timeout-seconds", p.clientIdleTimeoutSeconds(), 1, 86_400),
            number(
                values, "request-header-timeout-ms", p.requestHeaderTimeoutMillis(), 0, 3_600_000));
  }

  /** HTTP/2 prior knowledge, the connection cap, draining, warm-up and event loops. */
  private static ProxySettings withConnectionSettings(ProxySettings p, Map<String, String> values)
      throws UsageException {
    return p.withH2c(onOff(values, "h2c", p.h2c()))
        .withMaxClientConnections(
            (int) number(values, "max-client-connections", p.maxClientConnections(), 0, 10_000_000))
        .withDrainMillis(1000 * number(values, "drain-seconds", p.drainMillis() / 1000, 0, 3600))
        .withWarmUpMillis(1000 * number(values, "warm-up-seconds", p.warmUpMillis() / 1000, 0, 60))
        .withInstances((int) number(values, "instances", p.instances(), 1, 256));
  }

  /** The access-log flags: off unless --access-log names stdout or a file. */
  static AccessLogConfig accessLog(Map<String, String> values) throws UsageException {
    String target = values.getOrDefault("access-log", "off");
    if (target.isBlank()) {
      throw new UsageException("--access-log takes stdout, a file path, or off");
    }
    AccessLogFormat format =
        switch (values.getOrDefault("access-log-format", "json").toLowerCase(Locale.ROOT)) {
          case "json" -> AccessLogFormat.JSON;
          case "text" -> AccessLogFormat.TEXT;
          default -> throw new UsageException("--access-log-format takes json or text");
        };
    boolean all =
        switch (values.getOrDefault("access-log-pools", "spec").toLowerCase(Locale.ROOT)) {
          case "spec" -> false;
          case "all" -> true;
          default -> throw new UsageException("--access-log-pools takes spec or all");
        };
    boolean query = onOff(values, "access-log-query", false);
    int queue = (int) number(values, "access-log-queue", AccessLogConfig.DEFAULT_QUEUE, 1, 1 << 20);
    return new AccessLogConfig(
        target.equalsIgnoreCase("off") ? null : target,
        new AccessLog.Options(format, query, all, queue));
  }

  /** The tracing flags: off unless --otlp-endpoint names a receiver. */
  static TracingConfig tracing(Map<String, String> values) throws UsageException {
    String endpoint = values.getOrDefault("otlp-endpoint", "off");
    double sampling;
    try {
      sampling = Double.parseDouble(values.getOrDefault("trace-sampling", "0.01"));
    } catch (NumberFormatException e) {
      throw new UsageException("--trace-sampling takes a ratio from 0 to 1");
    }
    int queue = (int) number(values, "trace-queue", TracingConfig.DEFAULT_QUEUE, 1, 1 << 20);
    try {
      return new TracingConfig(
          endpoint.equalsIgnoreCase("off") ? null : URI.create(endpoint), sampling, queue);
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "--otlp-endpoint/--trace-sampling: " + e.getMessage() + " (got " + endpoint + ")");
    }
  }

  record HostPort(String host, int port) {}

  static HostPort hostPort(String flag, String value, String defaultHost, int defaultPort)
      throws UsageException {
    String host = defaultHost;
    String port = value;
    int colon = value.lastIndexOf(':');
    if (colon >= 0) {
      host = value.substring(0, colon);
      port = value.substring(colon + 1);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
    }
    if (host == null || host.isBlank()) {
      throw new UsageException("--" + flag + " needs HOST:PORT, got " + value);
    }
    try {
      int p = Integer.parseInt(port);
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return new HostPort(host, p);
    } catch (NumberFormatException e) {
      throw new UsageException("--" + flag + ": bad port in " + value);
    }
  }

  private static long number(Map<String, String> values, String flag, long def, long min, long max)
      throws UsageException {
    String v = values.get(flag);
    if (v == null) {
      return def;
    }
    try {
      long n = Long.parseLong(v);
      if (n < min || n > max) {
        throw new UsageException("--" + flag + " must be within " + min + ".." + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + flag + " needs a number, got " + v);
    }
  }

  private static boolean onOff(Map<String, String> values, String flag, boolean def)
      throws UsageException {
    String v = values.get(flag);
    if (v == null) {
      return def;
    }
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "on", "true", "yes" -> true;
      case "off", "false", "no" -> false;
      default -> throw new UsageException("--" + flag + " takes on or off, got " + v);
    };
  }
}
