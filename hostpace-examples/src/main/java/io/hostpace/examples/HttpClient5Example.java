package io.hostpace.examples;

// tag::httpclient5[]
import io.hostpace.Hostpace;
import io.hostpace.httpclient5.HostpaceHttpClient5;
import java.io.IOException;
import java.time.Duration;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.io.entity.EntityUtils;
// end::httpclient5[]

/** Apache HttpClient 5: an exec-chain handler, put in place by {@link HostpaceHttpClient5#pace}. */
final class HttpClient5Example {

  // tag::httpclient5[]
  static String fetch(Hostpace engine, String uri) throws IOException {
    try (CloseableHttpClient client = HostpaceHttpClient5.pace(HttpClients.custom(), engine).build()) {
      HttpClientContext context =   // bounds each attempt's whole answer, body included
          HostpaceHttpClient5.withAnswerTimeout(HttpClientContext.create(), Duration.ofMinutes(2));
      return client.execute(new HttpGet(uri), context, response -> EntityUtils.toString(response.getEntity()));
    }
  }
  // end::httpclient5[]

  public static void main(String[] args) throws IOException {
    Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
    System.out.println(fetch(engine, "https://qlever.dev/"));
  }

  private HttpClient5Example() {}
}
