package io.hostpace.kafka;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.RestClientResponseException;

/**
 * Reads the exceptions of {@code RestClient} and {@code RestTemplate}: every error response
 * they throw for is a {@link RestClientResponseException}, {@code HttpClientErrorException.TooManyRequests}
 * and {@code HttpServerErrorException.ServiceUnavailable} among them. Loaded only when
 * spring-web is present.
 */
final class SpringWebRefusals {

  private SpringWebRefusals() {}

  static RefusalReader.@Nullable Found read(Throwable throwable) {
    if (!(throwable instanceof RestClientResponseException response)) {
      return null;
    }
    HttpHeaders headers = response.getResponseHeaders();
    return new RefusalReader.Found(response.getStatusCode().value(),
        headers == null ? null : headers.getFirst(HttpHeaders.RETRY_AFTER),
        name -> headers == null ? null : headers.getFirst(name), false);
  }
}
