package io.hostpace.httpclient5;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterUnderTest;
import io.hostpace.testkit.ClientUnderTest;
import io.hostpace.testkit.Outcome;
import io.hostpace.testkit.Pending;
import io.hostpace.testkit.TestRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.support.AsyncRequestBuilder;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;
import org.jspecify.annotations.Nullable;

/** HttpClient 5 as the shared scenarios drive it: a classic client and an async one, each paced. */
final class HttpClient5Clients {

  private HttpClient5Clients() {}

  static HttpClientContext context(TestRequest request) {
    HttpClientContext context = HostpaceHttpClient5.withCallContext(HttpClientContext.create(), request.context());
    if (request.timeout() != null) {
      context.setRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.of(request.timeout())).build());
    }
    if (request.deadline() != null) {
      HostpaceHttpClient5.withAnswerTimeout(context, request.deadline());
    }
    return context;
  }

  /** {@code client.executeOpen(...)} on a thread of its own, cancelled with the request's {@code cancel()}. */
  static AdapterUnderTest classic(Hostpace engine) {
    CloseableHttpClient client = HostpaceHttpClient5.pace(HttpClients.custom(), engine).build();
    return new ClientUnderTest(IOException.class, SocketTimeoutException.class) {
      @Override
      public Pending start(TestRequest request) {
        HttpUriRequestBase http = new HttpUriRequestBase(request.method(), request.uri());
        if (request.body() != null) {
          http.setEntity(request.replayable()
              ? new ByteArrayEntity(request.body(), ContentType.TEXT_PLAIN)
              : new InputStreamEntity(new ByteArrayInputStream(request.body()), request.body().length, ContentType.TEXT_PLAIN));
        }
        request.headers().forEach(http::setHeader);
        HttpClientContext context = context(request);
        return Pending.onNewThread("httpclient5-classic " + request, () -> {
          try (ClassicHttpResponse response = client.executeOpen(null, http, context)) {
            String body = response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8);
            return Outcome.answer(response.getCode(), body);
          }
        }, http::cancel);
      }

      @Override
      public void close() throws IOException {
        client.close(CloseMode.IMMEDIATE);
      }
    };
  }

  /** {@code client.execute(producer, consumer, context, callback)}, cancelled with the future's {@code cancel(true)}. */
  static AdapterUnderTest async(Hostpace engine) {
    CloseableHttpAsyncClient client = HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine).build();
    client.start();
    return new ClientUnderTest(IOException.class, SocketTimeoutException.class) {
      @Override
      public Pending start(TestRequest request) {
        AsyncRequestBuilder builder = AsyncRequestBuilder.create(request.method()).setUri(request.uri());
        if (request.body() != null) {
          AsyncEntityProducer body = AsyncEntityProducers.create(request.body(), ContentType.TEXT_PLAIN);
          builder.setEntity(request.replayable() ? body : new OneShot(body));
        }
        request.headers().forEach(builder::setHeader);
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Future<SimpleHttpResponse> call = client.execute(builder.build(), SimpleResponseConsumer.create(), null, context(request),
            new FutureCallback<SimpleHttpResponse>() {
              @Override
              public void completed(SimpleHttpResponse response) {
                outcome.complete(Outcome.answer(response.getCode(), response.getBodyText() == null ? "" : response.getBodyText()));
              }

              @Override
              public void failed(Exception e) {
                outcome.completeExceptionally(e);
              }

              @Override
              public void cancelled() {
                outcome.cancel(false);
              }
            });
        return Pending.of(outcome, () -> call.cancel(true));
      }

      @Override
      public void close() {
        client.close(CloseMode.IMMEDIATE);
      }
    };
  }

  /** A body producer that says it cannot be produced again, as a stream's does. */
  static final class OneShot implements AsyncEntityProducer {
    private final AsyncEntityProducer delegate;

    OneShot(AsyncEntityProducer delegate) {
      this.delegate = delegate;
    }

    @Override
    public boolean isRepeatable() {
      return false;
    }

    @Override
    public void failed(Exception cause) {
      delegate.failed(cause);
    }

    @Override
    public long getContentLength() {
      return delegate.getContentLength();
    }

    @Override
    public String getContentType() {
      return delegate.getContentType();
    }

    @Override
    public @Nullable String getContentEncoding() {
      return delegate.getContentEncoding();
    }

    @Override
    public boolean isChunked() {
      return delegate.isChunked();
    }

    @Override
    public @Nullable Set<String> getTrailerNames() {
      return delegate.getTrailerNames();
    }

    @Override
    public int available() {
      return delegate.available();
    }

    @Override
    public void produce(DataStreamChannel channel) throws IOException {
      delegate.produce(channel);
    }

    @Override
    public void releaseResources() {
      delegate.releaseResources();
    }
  }
}
