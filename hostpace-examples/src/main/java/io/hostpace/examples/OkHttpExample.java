package io.hostpace.examples;

// tag::okhttp[]
import io.hostpace.Hostpace;
import io.hostpace.okhttp.HostpaceInterceptor;
import java.io.IOException;
import java.time.Duration;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
// end::okhttp[]

/** OkHttp: an application interceptor, put in place by {@link HostpaceInterceptor#pace}. */
final class OkHttpExample {

  // tag::okhttp[]
  static String fetch(Hostpace engine, String url) throws IOException {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequestsPerHost(32);   // OkHttp's own cap, 5 by default, also caps enqueue()d calls
    OkHttpClient client = HostpaceInterceptor.pace(new OkHttpClient.Builder(), engine)
        .dispatcher(dispatcher)
        .callTimeout(Duration.ofMinutes(2))   // the whole call, its wait and the body included
        .build();
    try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
      return response.body().string();
    }
  }
  // end::okhttp[]

  public static void main(String[] args) throws IOException {
    Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
    System.out.println(fetch(engine, "https://qlever.dev/"));
  }

  private OkHttpExample() {}
}
