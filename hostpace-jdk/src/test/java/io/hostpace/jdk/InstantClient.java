package io.hostpace.jdk;

import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * An HttpClient that answers inside {@code sendAsync}, before it returns: headers, body and
 * all, on the calling thread. No real client does that, but it is the extreme of an answer that
 * arrives before the engine listens to the attempt, which a real one can do on a fast network.
 * It plays its script of replies in order, repeating the last.
 */
final class InstantClient extends HttpClient {

  record Reply(int status, @Nullable String retryAfter, String body) {}

  private final Deque<Reply> script;
  /** The body handler's subscriber class for each attempt, as the adapter gave it. */
  final List<String> subscribers = new CopyOnWriteArrayList<>();

  InstantClient(Reply... script) {
    this.script = new ArrayDeque<>(List.of(script));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
    return sendAsync(request, handler, null);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> push) {
    Reply reply;
    synchronized (script) {
      reply = script.size() > 1 ? script.poll() : script.peek();
    }
    HttpHeaders headers = HttpHeaders.of(
        reply.retryAfter() == null ? Map.of() : Map.of("Retry-After", List.of(reply.retryAfter())), (name, value) -> true);
    ResponseInfo info = new ResponseInfo() {
      @Override
      public int statusCode() {
        return reply.status();
      }

      @Override
      public HttpHeaders headers() {
        return headers;
      }

      @Override
      public Version version() {
        return Version.HTTP_1_1;
      }
    };
    BodySubscriber<T> subscriber = handler.apply(info);
    subscribers.add(subscriber.getClass().getSimpleName());
    CompletableFuture<HttpResponse<T>> response = new CompletableFuture<>();
    subscriber.getBody().whenComplete((body, failure) -> {
      if (failure != null) {
        response.completeExceptionally(failure);
      } else {
        response.complete(new Response<>(request, info, body));
      }
    });
    subscriber.onSubscribe(new Flow.Subscription() {
      private boolean done;

      @Override
      public void request(long n) {
        if (done) {
          return;
        }
        done = true;
        subscriber.onNext(List.of(ByteBuffer.wrap(reply.body().getBytes(StandardCharsets.UTF_8))));
        subscriber.onComplete();
      }

      @Override
      public void cancel() {
        done = true;
      }
    });
    return response;
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler) {
    return sendAsync(request, handler).join();
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return Optional.empty();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return Optional.empty();
  }

  @Override
  public Redirect followRedirects() {
    return Redirect.NEVER;
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return Optional.empty();
  }

  @Override
  public SSLContext sslContext() {
    throw new UnsupportedOperationException();
  }

  @Override
  public SSLParameters sslParameters() {
    return new SSLParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return Optional.empty();
  }

  @Override
  public Version version() {
    return Version.HTTP_1_1;
  }

  @Override
  public Optional<Executor> executor() {
    return Optional.empty();
  }

  private record Response<T>(HttpRequest request, ResponseInfo info, T body) implements HttpResponse<T> {
    @Override
    public int statusCode() {
      return info.statusCode();
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return info.headers();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public Version version() {
      return info.version();
    }
  }
}
