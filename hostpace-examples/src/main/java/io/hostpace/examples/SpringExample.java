package io.hostpace.examples;

// tag::spring[]
import io.hostpace.Hostpace;
import io.hostpace.spring.HostpaceExchangeFilter;
import io.hostpace.spring.HostpaceRequestInterceptor;
import java.time.Duration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
// end::spring[]

/**
 * Spring: {@code RestClient} (and {@code RestTemplate}) take the interceptor, {@code WebClient} the
 * filter.
 */
final class SpringExample {

  // tag::spring[]
  static String fetchWithRestClient(Hostpace engine, String uri) {
    RestClient rest = RestClient.builder()
        .requestFactory(new JdkClientHttpRequestFactory())   // a factory whose client does not retry by itself
        .requestInterceptor(HostpaceRequestInterceptor.of(engine).withAnswerTimeout(Duration.ofMinutes(2)))
        .build();
    String body = rest.get().uri(uri).retrieve().body(String.class);
    return body == null ? "" : body;   // null for an empty body
  }

  static String fetchWithWebClient(Hostpace engine, String uri) {
    WebClient web = WebClient.builder().filter(HostpaceExchangeFilter.of(engine)).build();
    String body = web.get().uri(uri).retrieve().bodyToMono(String.class)
        .timeout(Duration.ofMinutes(2))   // the whole answer, the wait in the queue included
        .block();                         // or compose the Mono: the filter never blocks a thread
    return body == null ? "" : body;
  }
  // end::spring[]

  public static void main(String[] args) {
    Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
    System.out.println(fetchWithRestClient(engine, "https://qlever.dev/"));
    System.out.println(fetchWithWebClient(engine, "https://qlever.dev/"));
  }

  private SpringExample() {}
}
