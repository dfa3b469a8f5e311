package io.hostpace.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testkit.BucketServer;
import io.hostpace.testkit.TestServer;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Three different clients (curl, Python's urllib, the JDK's) sharing one upstream of one request a
 * second through the proxy, 20 requests each at once: every request gets its answer, and the
 * upstream refuses a few as the engine's first contact learns it (SPEC P12), where the same
 * requests sent direct are refused all but one. A client the machine does not have is played by
 * another JDK client, and the test says so.
 */
class ProxyPolitenessTest {

  @Test
  @Tag("wall-clock")
  void X1_threeClientsOfDifferentLanguagesShareOneEngineAndTheUpstreamRefusesFew(TestReporter reporter) throws Exception {
    int each = 20;
    BucketServer alone = new BucketServer(1, 1, 429, RetryAfter.none());
    try (TestServer upstream = TestServer.start(alone)) {
      List<Integer> direct = new ArrayList<>();
      for (String name : List.of("curl", "python", "jdk")) {
        direct.addAll(jdk(upstream.uri("/direct"), name, each, null));
      }
      reporter.publishEntry("direct", alone.accepted() + " accepted, " + alone.refused() + " refused");
      assertThat(direct).hasSize(3 * each);
    }
    BucketServer bucket = new BucketServer(1, 1, 429, RetryAfter.none());
    try (TestServer upstream = TestServer.start(bucket);
        Hostpace engine = Hostpace.builder().build();
        HostpaceProxy proxy = HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .route("/up", upstream.uri("")).start()) {
      // A thread for each client, so that the three send at once whatever the common pool's size.
      ExecutorService threads = Executors.newFixedThreadPool(3);
      List<CompletableFuture<List<Integer>>> clients = new ArrayList<>();
      clients.add(CompletableFuture.supplyAsync(() -> onPath("curl")
          ? run(shell("for i in $(seq 1 " + each + "); do curl -s -o /dev/null -w '%{http_code}\\n' '" + proxy.uri()
              + "/up/curl/'$i & done; wait"))
          : jdk(URI.create(proxy.uri() + "/up"), "curl", each, reporter), threads));
      clients.add(CompletableFuture.supplyAsync(() -> onPath("python3")
          ? run(List.of("python3", "-c", "import concurrent.futures, urllib.request, urllib.error\n"
              + "def get(i):\n"
              + "    try:\n"
              + "        return urllib.request.urlopen('" + proxy.uri() + "/up/python/%d' % i).status\n"
              + "    except urllib.error.HTTPError as e:\n"
              + "        return e.code\n"
              + "with concurrent.futures.ThreadPoolExecutor(" + each + ") as pool:\n"
              + "    for status in pool.map(get, range(" + each + ")):\n"
              + "        print(status)\n"))
          : jdk(URI.create(proxy.uri() + "/up"), "python", each, reporter), threads));
      clients.add(CompletableFuture.supplyAsync(() -> jdk(URI.create(proxy.uri() + "/up"), "jdk", each, null), threads));

      List<Integer> statuses = new ArrayList<>();
      try {
        for (CompletableFuture<List<Integer>> client : clients) {
          statuses.addAll(client.get(10, TimeUnit.MINUTES));
        }
      } finally {
        threads.shutdownNow();
      }
      reporter.publishEntry("upstream", bucket.accepted() + " accepted, " + bucket.refused() + " refused");
      assertThat(statuses).hasSize(3 * each).containsOnly(200);
      assertThat(bucket.accepted()).isEqualTo(3 * each);
      // Each refusal of the first contact's widening (SPEC P12), then of the rule's probes: a few, not all but one.
      assertThat(bucket.refused()).as("refusals at the upstream").isLessThanOrEqualTo(10);
      assertThat(alone.refused()).as("refusals going direct").isGreaterThanOrEqualTo(5 * bucket.refused());
    }
  }

  private static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, program).canExecute()) {
        return true;
      }
    }
    return false;
  }

  private static List<String> shell(String script) {
    return List.of("sh", "-c", script);
  }

  /** Runs {@code command}; the statuses it printed, one a line. */
  private static List<Integer> run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor()).as(String.join(" ", command)).isZero();
      return out.lines().map(String::strip).filter(line -> !line.isEmpty()).map(Integer::valueOf).toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code count} requests at once from the JDK's client to {@code base}, standing in for {@code name} when {@code reporter} is given. */
  private static List<Integer> jdk(URI base, String name, int count, @org.jspecify.annotations.Nullable TestReporter reporter) {
    if (reporter != null) {
      reporter.publishEntry("skipped", name + " is not on this machine: the JDK's client plays it");
    }
    HttpClient client = HttpClient.newHttpClient();
    List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      sent.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/" + name + "/" + i)).build(),
          HttpResponse.BodyHandlers.discarding()));
    }
    return sent.stream().map(answer -> answer.join().statusCode()).toList();
  }
}
