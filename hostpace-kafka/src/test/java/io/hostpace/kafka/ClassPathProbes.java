package io.hostpace.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;

/** Probes that {@link ClassPathTest} loads in a class loader without spring-webflux, or without spring-web too. */
final class ClassPathProbes {

  private ClassPathProbes() {}

  static RetryAfterBackOffHandler handler() {
    return RetryAfterBackOffHandler.builder().jitter(Duration.ZERO, Duration.ZERO).build();
  }

  static String absent(String what, String className) {
    try {
      Class.forName(className);
      return what + " present";
    } catch (ClassNotFoundException e) {
      return what + " absent";
    }
  }

  /** Refers to spring-web, never to spring-webflux. */
  public static final class WithoutWebFlux implements Callable<String> {
    @Override
    public String call() {
      HttpHeaders headers = new HttpHeaders();
      headers.set(HttpHeaders.RETRY_AFTER, "3");
      Exception refused = new ListenerExecutionFailedException("failed", HttpClientErrorException.create(
          HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers, new byte[0], StandardCharsets.UTF_8));
      Exception serverError = new ListenerExecutionFailedException("failed", HttpServerErrorException.create(
          HttpStatus.INTERNAL_SERVER_ERROR, "Internal Server Error", headers, new byte[0], StandardCharsets.UTF_8));
      RetryAfterBackOffHandler handler = handler();
      return absent("webflux", "org.springframework.web.reactive.function.client.WebClientResponseException")
          + "; 429 Retry-After: 3 -> " + handler.backOffFor(refused, 1000)
          + "; 500 -> " + handler.backOffFor(serverError, 1000);
    }
  }

  /** Refers to neither spring-web nor spring-webflux. */
  public static final class WithoutSpringWeb implements Callable<String> {
    @Override
    public String call() {
      Exception refused = new ListenerExecutionFailedException("failed", new Refused());
      Exception other = new ListenerExecutionFailedException("failed", new IllegalStateException("boom"));
      RetryAfterBackOffHandler handler = handler();
      return absent("spring-web", "org.springframework.web.client.RestClientResponseException")
          + "; Refusal Retry-After: 2 -> " + handler.backOffFor(refused, 1000)
          + "; other -> " + handler.backOffFor(other, 1000);
    }
  }

  static final class Refused extends RuntimeException implements Refusal {
    Refused() {
      super("refused");
    }

    @Override
    public int status() {
      return 429;
    }

    @Override
    public Optional<String> retryAfter() {
      return Optional.of("2");
    }
  }
}
