package io.hostpace.spring;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterUnderTest;
import io.hostpace.testkit.ClientUnderTest;
import io.hostpace.testkit.Outcome;
import io.hostpace.testkit.Pending;
import io.hostpace.testkit.TestRequest;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClientRequest;

/** Spring's clients as the shared scenarios drive them: RestClient, RestTemplate (JDK request factory) and WebClient (Reactor Netty). */
final class SpringClients {

  private SpringClients() {}

  static JdkClientHttpRequestFactory factory(HttpClient jdk, TestRequest request) {
    JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(jdk);
    if (request.timeout() != null) {
      factory.setReadTimeout(request.timeout());
    }
    return factory;
  }

  static Outcome outcome(ClientHttpResponse response) throws java.io.IOException {
    return Outcome.answer(response.getStatusCode().value(), new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8));
  }

  /** Blocking clients: a thread of their own per call, cancelled by interrupting it. */
  abstract static class Blocking extends ClientUnderTest {
    final HttpClient jdk = HttpClient.newHttpClient();

    Blocking() {
      super(ResourceAccessException.class, ResourceAccessException.class);
    }

    @Override
    public boolean supportsOneShotBodies() {
      return false; // Spring hands interceptors the body as a byte array
    }

    @Override
    public boolean abortsAtBudget() {
      return false; // an interceptor's execution cannot be aborted from another thread
    }

    @Override
    public boolean resendsAGetOnAClosedConnection() {
      return true; // the JDK client under the factory does, as PacedHttpClient's Javadoc says
    }
  }

  static AdapterUnderTest restClient(Hostpace engine) {
    return new Blocking() {
      final RestClient.Builder builder = RestClient.builder().requestInterceptor(HostpaceRequestInterceptor.of(engine));

      @Override
      public Pending start(TestRequest request) {
        RestClient client = builder.clone().requestFactory(factory(jdk, request)).build();
        RestClient.RequestBodySpec spec = client.method(HttpMethod.valueOf(request.method())).uri(request.uri())
            .attribute(HostpaceRequestInterceptor.CALL_CONTEXT, request.context());
        if (request.deadline() != null) {
          spec.attribute(HostpaceRequestInterceptor.ANSWER_TIMEOUT, request.deadline());
        }
        request.headers().forEach(spec::header);
        if (request.body() != null) {
          spec.body(request.body());
        }
        return Pending.onNewThread("rest-client " + request, () -> spec.exchange((req, response) -> outcome(response)));
      }
    };
  }

  static AdapterUnderTest restTemplate(Hostpace engine) {
    return new Blocking() {
      @Override
      public Pending start(TestRequest request) {
        RestTemplate template = new RestTemplate(factory(jdk, request));
        template.getInterceptors().add(HostpaceRequestInterceptor.of(engine));
        template.setErrorHandler(new ResponseErrorHandler() {
          @Override
          public boolean hasError(ClientHttpResponse response) {
            return false; // a 429 is an answer like any other here
          }
        });
        return Pending.onNewThread("rest-template " + request, () -> template.execute(request.uri(), HttpMethod.valueOf(request.method()),
            http -> {
              http.getAttributes().put(HostpaceRequestInterceptor.CALL_CONTEXT, request.context());
              if (request.deadline() != null) {
                http.getAttributes().put(HostpaceRequestInterceptor.ANSWER_TIMEOUT, request.deadline());
              }
              request.headers().forEach(http.getHeaders()::set);
              if (request.body() != null) {
                http.getBody().write(request.body());
              }
            },
            SpringClients::outcome));
      }
    };
  }

  static AdapterUnderTest webClient(Hostpace engine) {
    WebClient client = WebClient.builder()
        .clientConnector(new ReactorClientHttpConnector(reactor.netty.http.client.HttpClient.create()))
        .filter(HostpaceExchangeFilter.of(engine))
        .build();
    return new ClientUnderTest(WebClientRequestException.class, WebClientRequestException.class) {
      @Override
      public Pending start(TestRequest request) {
        WebClient.RequestBodySpec spec = client.method(HttpMethod.valueOf(request.method())).uri(request.uri())
            .attribute(HostpaceRequestInterceptor.CALL_CONTEXT, request.context());
        request.headers().forEach(spec::header);
        Duration timeout = request.timeout();
        if (timeout != null) {
          spec.httpRequest(http -> ((HttpClientRequest) http.getNativeRequest()).responseTimeout(timeout));
        }
        if (request.body() != null) {
          if (request.replayable()) {
            spec.bodyValue(request.body());
          } else {
            // A publisher that gives its bytes to its first subscriber only, as a stream's would.
            AtomicBoolean given = new AtomicBoolean();
            byte[] bytes = request.body();
            Flux<DataBuffer> once = Flux.defer(() -> given.getAndSet(true)
                ? Flux.error(new IllegalStateException("the body was already sent"))
                : Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(bytes)));
            spec.attribute(HostpaceExchangeFilter.ONE_SHOT_BODY, true).body(once, DataBuffer.class);
          }
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Mono<Outcome> call = spec.exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
            .map(body -> Outcome.answer(response.statusCode().value(), body)));
        if (request.deadline() != null) {
          call = call.timeout(request.deadline()); // the whole exchange, body included; cancelling it closes the connection
        }
        Disposable subscription = call.subscribe(outcome::complete, outcome::completeExceptionally);
        return Pending.of(outcome, () -> {
          subscription.dispose();
          outcome.cancel(false);
        });
      }
    };
  }
}
