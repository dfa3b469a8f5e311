package io.hostpace.okhttp;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterUnderTest;
import io.hostpace.testkit.ClientUnderTest;
import io.hostpace.testkit.Outcome;
import io.hostpace.testkit.Pending;
import io.hostpace.testkit.TestRequest;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;

/** OkHttp as the shared scenarios drive it: a client with the interceptor, called with execute or enqueue. */
final class OkHttpClients {

  static final MediaType TEXT = MediaType.get("text/plain; charset=utf-8");

  private OkHttpClients() {}

  /** A body that says it can be sent only once, as a stream does. */
  static RequestBody oneShot(byte[] bytes) {
    return new RequestBody() {
      @Override
      public @Nullable MediaType contentType() {
        return TEXT;
      }

      @Override
      public long contentLength() {
        return bytes.length;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        sink.write(bytes);
      }

      @Override
      public boolean isOneShot() {
        return true;
      }
    };
  }

  static Request request(TestRequest request) {
    RequestBody body = null;
    if (request.body() != null) {
      body = request.replayable() ? RequestBody.create(request.body(), TEXT) : oneShot(request.body());
    } else if (request.method().equals("POST")) {
      body = RequestBody.create(new byte[0], TEXT);
    }
    Request.Builder builder = new Request.Builder().url(request.uri().toString()).method(request.method(), body)
        .tag(io.hostpace.CallContext.class, request.context());
    request.headers().forEach(builder::header);
    return builder.build();
  }

  static Outcome outcome(Response response) throws IOException {
    try (response) {
      return Outcome.answer(response.code(), response.body().string());
    }
  }

  abstract static class Adapter extends ClientUnderTest {
    final OkHttpClient client;

    Adapter(Hostpace engine) {
      super(IOException.class, SocketTimeoutException.class);
      client = HostpaceInterceptor.pace(new OkHttpClient.Builder(), engine).build();
    }

    Call newCall(TestRequest request) {
      OkHttpClient.Builder through = client.newBuilder();
      if (request.timeout() != null) {
        through.readTimeout(request.timeout().toMillis(), TimeUnit.MILLISECONDS);
      }
      if (request.deadline() != null) {
        through.callTimeout(request.deadline().toMillis(), TimeUnit.MILLISECONDS); // the whole call, body included
      }
      return through.build().newCall(request(request));
    }

    @Override
    public void close() {
      client.dispatcher().cancelAll();
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    }
  }

  /** {@code call.execute()} on a thread of its own, cancelled with {@code call.cancel()}. */
  static AdapterUnderTest execute(Hostpace engine) {
    return new Adapter(engine) {
      @Override
      public Pending start(TestRequest request) {
        Call call = newCall(request);
        return Pending.onNewThread("okhttp-execute " + request, () -> outcome(call.execute()), call::cancel);
      }
    };
  }

  /** {@code call.enqueue(callback)}, cancelled with {@code call.cancel()}. */
  static AdapterUnderTest enqueue(Hostpace engine) {
    return new Adapter(engine) {
      @Override
      public Pending start(TestRequest request) {
        Call call = newCall(request);
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        call.enqueue(new Callback() {
          @Override
          public void onResponse(Call call, Response response) {
            try {
              outcome.complete(OkHttpClients.outcome(response));
            } catch (IOException e) {
              outcome.completeExceptionally(e);
            }
          }

          @Override
          public void onFailure(Call call, IOException e) {
            outcome.completeExceptionally(e);
          }
        });
        return Pending.of(outcome, call::cancel);
      }
    };
  }
}
