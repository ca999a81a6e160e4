package dev.replicapool.registrar;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of a replica as its own health URL reports it: a GET that answers 2xx within the
 * timeout is healthy; any other status, a time-out or a refused connection is not. Called once per
 * renewal from the registrar's thread; it blocks for at most the timeout.
 */
public final class HttpHealthCheck implements BooleanSupplier {
  private static final Logger log = LoggerFactory.getLogger(HttpHealthCheck.class);

  private final URI url;
  private final Duration timeout;
  private final HttpClient client;
  private final AtomicReference<String> lastProblem = new AtomicReference<>();

  public HttpHealthCheck(URI url, Duration timeout) {
    if (url == null || url.getHost() == null) {
      throw new IllegalArgumentException("health URL must be absolute, got " + url);
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("health check timeout must be positive, got " + timeout);
    }
    this.url = url;
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  public URI url() {
    return url;
  }

  public Duration timeout() {
    return timeout;
  }

  @Override
  public boolean getAsBoolean() {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(timeout)
            .header("user-agent", "replicapool-registrar")
            .GET()
            .build();
    String problem;
    try {
      HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
      int status = response.statusCode();
      if (status >= 200 && status < 300) {
        if (lastProblem.getAndSet(null) != null) {
          log.info("health URL {} answers {} again", url, status);
        }
        return true;
      }
      problem = "status " + status;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted";
    } catch (java.net.http.HttpTimeoutException e) {
      problem = "no answer within " + timeout.toMillis() + " ms";
    } catch (java.net.ConnectException e) {
      problem = "connection refused";
    } catch (Exception e) {
      problem =
          e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
    if (!problem.equals(lastProblem.getAndSet(problem))) {
      log.info("health URL {} reports unhealthy: {}", url, problem);
    }
    return false;
  }

  @Override
  public String toString() {
    return "GET " + url + " (timeout " + timeout.toMillis() + " ms)";
  }
}
