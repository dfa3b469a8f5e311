package io.hostpace.kafka;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/** Reads the exceptions of {@code WebClient}. Loaded only when spring-webflux is present. */
final class WebFluxRefusals {

  private WebFluxRefusals() {}

  static RefusalReader.@Nullable Found read(Throwable throwable) {
    if (!(throwable instanceof WebClientResponseException response)) {
      return null;
    }
    HttpHeaders headers = response.getHeaders();
    return new RefusalReader.Found(
        response.getStatusCode().value(), headers.getFirst(HttpHeaders.RETRY_AFTER), headers::getFirst, false);
  }
}
