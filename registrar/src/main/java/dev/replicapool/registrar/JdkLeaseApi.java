package dev.replicapool.registrar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lease's calls over the JDK's own HTTP client, with what {@link KubeAccess} read: no model
 * classes, no JSON library, no client to start, so a replica is a member a fraction of a second
 * after its registrar is exec'd (fabric8's client alone takes most of a second to start). Each call
 * fails after {@code timeout} and is not retried here: the next renewal is the retry. Nothing to
 * close: the JDK 17 client's threads are daemons and go with it.
 */
final class JdkLeaseApi implements LeaseApi {
  /** The message of a {@code Status} the API server answers a refusal with. */
  private static final Pattern STATUS_MESSAGE =
      Pattern.compile("\"message\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

  private final KubeAccess access;
  private final HttpClient http;
  private final Duration timeout;
  private final URI leases;
  private final URI lease;

  JdkLeaseApi(KubeAccess access, String namespace, String name, Duration timeout) {
    this.access = access;
    this.timeout = timeout;
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER);
    access.tls().ifPresent(builder::sslContext);
    this.http = builder.build();
    String base = access.server().toString().replaceAll("/+$", "");
    this.leases =
        URI.create(
            base
                + "/apis/coordination.k8s.io/v1/namespaces/"
                + URLEncoder.encode(namespace, StandardCharsets.UTF_8)
                + "/leases");
    this.lease = URI.create(leases + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8));
  }

  @Override
  public void create(String json) {
    send(request(leases, "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  @Override
  public void mergePatch(String json) {
    send(
        request(lease, "application/merge-patch+json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
  }

  @Override
  public void delete() {
    send(request(lease, null).DELETE());
  }

  private HttpRequest.Builder request(URI uri, String contentType) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json");
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    access.authorization().get().ifPresent(a -> request.header("Authorization", a));
    return request;
  }

  private void send(HttpRequest.Builder request) {
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    int code = response.statusCode();
    if (code / 100 != 2) {
      throw new RefusedException(code, statusMessage(response.body()));
    }
  }

  /** The Status's message, else the body as it came (the first 200 characters). */
  static String statusMessage(String body) {
    Matcher m = STATUS_MESSAGE.matcher(body);
    if (m.find()) {
      return m.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
    }
    String trimmed = body.strip();
    return trimmed.length() > 200 ? trimmed.substring(0, 200) + "..." : trimmed;
  }
}
