package dev.replicapool.dataplane.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Vert.x behaviour {@link UpstreamRequest} works around, and that it does, on a real client and
 * a real member that answers before it reads the body (as the sample replica does). Deterministic:
 * the reset comes after the member's answer has ended, which is the state the data plane's reset
 * raced into under load. One pooled connection, so the next request must take the same one.
 */
class UpstreamRequestTest {
  Vertx vertx;
  HttpServer member;
  HttpClient client;
  OnEventLoop loop;
  final AtomicInteger connections = new AtomicInteger();
  final List<String> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    member =
        vertx
            .createHttpServer()
            .connectionHandler(c -> connections.incrementAndGet())
            .requestHandler(
                req -> {
                  requests.add(req.method() + " " + req.uri());
                  req.response().end("early"); // before the body
                })
            .listen(0, "127.0.0.1")
            .await();
    loop = new OnEventLoop(vertx);
    client =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(1));
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  /** Started on an event loop: see {@link OnEventLoop}. */
  Future<HttpClientRequest> request(RequestOptions options) {
    return loop.call(() -> client.request(options));
  }

  RequestOptions to(HttpMethod method, String uri) {
    return new RequestOptions()
        .setHost("127.0.0.1")
        .setPort(member.actualPort())
        .setMethod(method)
        .setURI(uri);
  }

  /** A chunked POST with part of its body written, answered, and the answer read to its end. */
  static HttpClientRequest answeredHalfWay(HttpClientRequest post) throws TimeoutException {
    // Read the answer in the chain that gets it: the member answers as soon as it has the head.
    Future<Buffer> answer = post.response().compose(HttpClientResponse::body);
    post.setChunked(true);
    post.write(Buffer.buffer("c".repeat(1000))).await(5, TimeUnit.SECONDS);
    assertThat(answer.await(5, TimeUnit.SECONDS).toString()).isEqualTo("early");
    return post;
  }

  Future<HttpClientResponse> get() {
    return request(to(HttpMethod.GET, "/next")).compose(HttpClientRequest::send);
  }

  /**
   * What UpstreamRequest is for. If this fails after a Vert.x upgrade, Vert.x no longer hands such
   * a connection back, and UpstreamRequest may go.
   */
  @Test
  void vertxHandsTheConnectionBackHalfWayThroughTheBodyOnAReset() throws Exception {
    HttpClientRequest post =
        answeredHalfWay(request(to(HttpMethod.POST, "/up")).await(5, TimeUnit.SECONDS));
    post.reset().await(5, TimeUnit.SECONDS);

    Future<HttpClientResponse> next = get();
    assertThatThrownBy(() -> next.await(1, TimeUnit.SECONDS))
        .as("the next request, on the same connection, never goes out")
        .isInstanceOf(TimeoutException.class);
    assertThat(requests).containsExactly("POST /up");
    assertThat(connections.get()).isEqualTo(1);
  }

  @Test
  void aResetHalfWayThroughTheBodyClosesTheConnectionInstead() throws Exception {
    UpstreamRequest post =
        new UpstreamRequest(
            request(to(HttpMethod.POST, "/up")).await(5, TimeUnit.SECONDS),
            t -> {
              throw new AssertionError("not a client failure", t);
            });
    answeredHalfWay(post);
    assertThat(post.sent()).isFalse();
    post.reset().await(5, TimeUnit.SECONDS);

    HttpClientResponse next = get().await(5, TimeUnit.SECONDS);
    assertThat(next.statusCode()).isEqualTo(200);
    assertThat(requests).containsExactly("POST /up", "GET /next");
    assertThat(connections.get()).as("the next request went on a new connection").isEqualTo(2);
  }

  @Test
  void aRequestWithNothingOrAllOfItWrittenIsResetAndItsConnectionKept() throws Exception {
    UpstreamRequest nothing =
        new UpstreamRequest(
            request(to(HttpMethod.POST, "/nothing")).await(5, TimeUnit.SECONDS), t -> {});
    nothing.reset().await(5, TimeUnit.SECONDS);
    assertThat(get().await(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

    UpstreamRequest all =
        new UpstreamRequest(
            request(to(HttpMethod.POST, "/all")).await(5, TimeUnit.SECONDS), t -> {});
    Future<Buffer> answer = all.response().compose(HttpClientResponse::body);
    all.end(Buffer.buffer("whole")).await(5, TimeUnit.SECONDS);
    assertThat(all.sent()).isTrue();
    answer.await(5, TimeUnit.SECONDS);
    all.reset(); // the exchange is over: nothing to cut
    assertThat(get().await(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

    assertThat(requests).containsExactly("GET /next", "POST /all", "GET /next");
    assertThat(connections.get()).as("one connection all along").isEqualTo(1);
  }

  @Test
  void aResetWithACauseIsAClientFailureFirst() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    UpstreamRequest post =
        new UpstreamRequest(
            request(to(HttpMethod.POST, "/up")).await(5, TimeUnit.SECONDS),
            t -> seen.add(t.getMessage()));
    answeredHalfWay(post);
    post.reset(0, new IllegalStateException("client gone"));
    post.reset(0, new IllegalStateException("again")); // given up already: ignored
    assertThat(seen).containsExactly("client gone");
    assertThat(get().await(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(connections.get()).isEqualTo(2);
  }
}
