package io.hostpace.examples;

// tag::jdk[]
import io.hostpace.Hostpace;
import io.hostpace.jdk.PacedHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
// end::jdk[]

/** {@code java.net.http}: a {@link PacedHttpClient} is an {@code HttpClient} that sends through the engine. */
final class JdkExample {

  // tag::jdk[]
  static String fetch(Hostpace engine, URI uri) throws IOException, InterruptedException {
    HttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
    HttpRequest request = HttpRequest.newBuilder(uri).build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    return response.body();   // when retries run out, the host's last answer
  }
  // end::jdk[]

  public static void main(String[] args) throws IOException, InterruptedException {
    Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
    System.out.println(fetch(engine, URI.create("https://qlever.dev/")));
  }

  private JdkExample() {}
}
