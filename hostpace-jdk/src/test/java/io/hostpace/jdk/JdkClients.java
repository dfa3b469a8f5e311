package io.hostpace.jdk;

import io.hostpace.testkit.AdapterUnderTest;
import io.hostpace.testkit.ClientUnderTest;
import io.hostpace.testkit.Outcome;
import io.hostpace.testkit.Pending;
import io.hostpace.testkit.TestRequest;

import io.hostpace.Hostpace;
import io.hostpace.jdk.PacedHttpClient;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.io.IOException;

/** The java.net.http adapter as the testkit's contract drives it, sync and async. */
final class JdkClients {

  private JdkClients() {}

  static HttpRequest request(PacedHttpClient client, TestRequest request) {
    BodyPublisher body = request.body() == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(request.body());
    if (!request.replayable()) {
      body = PacedHttpClient.oneShot(body);
    }
    HttpRequest.Builder builder = HttpRequest.newBuilder(request.uri()).method(request.method(), body);
    request.headers().forEach(builder::header);
    // The request's timeout bounds the whole answer here: the deadline, when one is given, else the timeout.
    if (request.deadline() != null) {
      builder.timeout(request.deadline());
    } else if (request.timeout() != null) {
      builder.timeout(request.timeout());
    }
    return builder.build();
  }

  static Outcome outcome(HttpResponse<String> response) {
    return Outcome.answer(response.statusCode(), response.body());
  }

  abstract static class Jdk extends ClientUnderTest {
    final HttpClient delegate = HttpClient.newHttpClient();
    final PacedHttpClient client;

    Jdk(Hostpace engine) {
      super(IOException.class, HttpTimeoutException.class);
      client = PacedHttpClient.wrap(delegate, engine);
    }

    /** Each attempt sent on a pooled thread by the delegate's {@code send}, or by its {@code sendAsync}, whatever this JVM needs. */
    Jdk(Hostpace engine, boolean pooled) {
      super(IOException.class, HttpTimeoutException.class);
      client = PacedHttpClient.wrap(delegate, engine, pooled);
    }

    PacedHttpClient client(TestRequest request) {
      PacedHttpClient withContext = client.withContext(request.context());
      return request.maxBodyBytes() == null ? withContext : withContext.withMaxBodyBytes(request.maxBodyBytes());
    }

    @Override
    public boolean capsBodies() {
      return true;
    }

    @Override
    public boolean resendsAGetOnAClosedConnection() {
      return true; // MultiExchange: a GET or HEAD whose connection closed before any answer, once
    }

    @Override
    public void close() {
      client.shutdownNow();
    }
  }

  static AdapterUnderTest async(Hostpace engine) {
    return new Jdk(engine) {
      @Override
      public Pending start(TestRequest request) {
        var call = client(request).sendAsync(request(client, request), BodyHandlers.ofString());
        return Pending.of(call.thenApply(JdkClients::outcome), () -> call.cancel(true));
      }
    };
  }

  /** As {@link #async}, each attempt sent on a pooled thread whatever this JVM needs. */
  static AdapterUnderTest asyncPooled(Hostpace engine) {
    return new Jdk(engine, true) {
      @Override
      public Pending start(TestRequest request) {
        var call = client(request).sendAsync(request(client, request), BodyHandlers.ofString());
        return Pending.of(call.thenApply(JdkClients::outcome), () -> call.cancel(true));
      }
    };
  }

  static AdapterUnderTest blocking(Hostpace engine) {
    return new Jdk(engine) {
      @Override
      public Pending start(TestRequest request) {
        return Pending.onNewThread("jdk-send " + request, () -> outcome(client(request).send(request(client, request), BodyHandlers.ofString())));
      }
    };
  }
}
