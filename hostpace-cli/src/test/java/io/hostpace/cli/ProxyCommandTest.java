package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.testkit.TestServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code hostpace proxy}: a process of its own that serves its routes through one engine until stopped. */
class ProxyCommandTest {

  @Test
  void X1_theProxyCommandServesItsRoutesThroughTheEngineAndStopsOnASignalSavingItsState(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeFalse(InterruptTest.sigintIgnored(), "this JVM ignores SIGINT, and so would the one it starts");
    AtomicInteger calls = new AtomicInteger();
    try (TestServer upstream = TestServer.start((request, exchange) -> {
      if (calls.incrementAndGet() == 1) {
        TestServer.reply(exchange, 429, "slow down", "Retry-After", "0");
      } else {
        TestServer.reply(exchange, 200, "ok " + request.path());
      }
    })) {
      java.nio.file.Path state = dir.resolve("hosts.tsv");
      // The route and the address from --config, as an application's file would give them.
      java.nio.file.Path config = dir.resolve("app.properties");
      java.nio.file.Files.writeString(config, "hostpace.proxy.routes[/u]=" + upstream.uri("/base") + "\n"
          + "hostpace.proxy.listen=127.0.0.1:0\n" + "hostpace.hosts[" + upstream.hostKey().replace(":", "\\:") + "]=inFlight:1\n"); // a key's colon escaped
      Process proxy = CommandRun.process("proxy", "--config", config.toString(), "--state", state.toString())
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      try {
        BufferedReader out = new BufferedReader(new InputStreamReader(proxy.getInputStream(), StandardCharsets.UTF_8));
        String first = out.readLine();
        assertThat(first).startsWith("hostpace proxy on http://127.0.0.1:");
        String base = first.substring("hostpace proxy on ".length(), first.indexOf(' ', "hostpace proxy on ".length()));
        assertThat(out.readLine()).isEqualTo("  " + base + "/u -> " + upstream.uri("/base"));

        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(base + "/u/x?y=1")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("ok /base/x");
        assertThat(upstream.requests()).as("refused once, retried through the engine").hasSize(2);
        HttpResponse<String> hosts = client.send(HttpRequest.newBuilder(URI.create(base + "/hostpace/hosts")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(hosts.statusCode()).isEqualTo(200);
        assertThat(hosts.body()).as("the hosts the engine holds: none once idle (SPEC P10)").startsWith("[");
        HttpResponse<String> metrics = client.send(HttpRequest.newBuilder(URI.create(base + "/hostpace/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains("hostpace_attempts_refused_total{host=\"" + upstream.hostKey() + "\",scope=\"host\"} 1.0",
            "hostpace_attempts_started_total{host=\"" + upstream.hostKey() + "\",scope=\"host\"} 2.0");
        assertThat(new ProcessBuilder("kill", "-INT", Long.toString(proxy.pid())).start().waitFor()).isZero(); // Ctrl-C
        assertThat(proxy.waitFor(30, TimeUnit.SECONDS)).isTrue();
      } finally {
        proxy.destroyForcibly();
      }
      assertThat(proxy.exitValue()).isEqualTo(Main.INTERRUPTED);
      assertThat(state).exists();
    }
  }

  @org.junit.jupiter.api.io.TempDir
  java.nio.file.Path configs;

  private String writeConfig(String text) {
    try {
      java.nio.file.Path file = java.nio.file.Files.createTempFile(configs, "proxy", ".properties");
      java.nio.file.Files.writeString(file, text);
      return file.toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void X4_aRouteOrAnAddressThatIsWrongIsAUsageErrorThatNamesIt() {
    CommandRun noEquals = CommandRun.of("proxy", "--listen", "127.0.0.1:0", "--route", "/w https://query.wikidata.org");
    assertThat(noEquals.status()).isEqualTo(Main.USAGE);
    assertThat(noEquals.err()).contains("--route", "no '='");

    CommandRun remote = CommandRun.of("proxy", "--listen", "0.0.0.0:0", "--route", "/w=https://query.wikidata.org");
    assertThat(remote.status()).isEqualTo(Main.USAGE);
    assertThat(remote.err()).contains("--listen 0.0.0.0:0", "--allow-remote");

    CommandRun badPort = CommandRun.of("proxy", "--listen", "127.0.0.1:http", "--route", "/w=https://query.wikidata.org");
    assertThat(badPort.status()).isEqualTo(Main.USAGE);
    assertThat(badPort.err()).contains("--listen '127.0.0.1:http'");
    CommandRun signedPort = CommandRun.of("proxy", "--listen", "127.0.0.1:+0", "--route", "/w=https://query.wikidata.org");
    assertThat(signedPort.status()).isEqualTo(Main.USAGE);
    assertThat(signedPort.err()).contains("--listen '127.0.0.1:+0': the port is not a number");

    CommandRun fromFile = CommandRun.withInput("", "proxy", "--config", writeConfig(
        "hostpace.proxy.listen=0.0.0.0:0\nhostpace.proxy.routes[/w]=https://query.wikidata.org\n"));
    assertThat(fromFile.status()).isEqualTo(Main.USAGE);
    assertThat(fromFile.err()).contains("--listen 0.0.0.0:0", "--allow-remote");

    CommandRun unknown = CommandRun.of("proxy", "--config", writeConfig("hostpace.proxy.route[/w]=https://query.wikidata.org\n"));
    assertThat(unknown.status()).isEqualTo(Main.USAGE);
    assertThat(unknown.err()).contains("'hostpace.proxy.route[/w]' is not a key", "hostpace.proxy.routes[/PREFIX]");

    CommandRun none = CommandRun.of("proxy", "--listen", "127.0.0.1:0");
    assertThat(none.status()).isEqualTo(Main.USAGE);
    assertThat(none.err()).contains("--route", "--forward");

    CommandRun badSize = CommandRun.of("proxy", "--listen", "127.0.0.1:0", "--route", "/w=https://query.wikidata.org",
        "--max-request-body", "1x");
    assertThat(badSize.status()).isEqualTo(Main.USAGE);
    assertThat(badSize.err()).startsWith("hostpace: --max-request-body '1x' is not a size");

    CommandRun badKey = CommandRun.of("proxy", "--listen", "127.0.0.1:0", "--forward", "Example.org");
    assertThat(badKey.status()).isEqualTo(Main.USAGE);
    assertThat(badKey.err()).contains("--forward", "'Example.org'").doesNotContain("--config");
  }

  @Test
  void I5_aRouteOrAHostToForwardThatIsWrongInTheConfigFileNamesItsKeyAndLine() {
    String routes = writeConfig("# the proxy\nhostpace.proxy.routes[/w]=https://query.wikidata.org\n"
        + "hostpace.proxy.routes[/p]=http://127.0.0.1:99999\n");
    CommandRun badRoute = CommandRun.of("proxy", "--listen", "127.0.0.1:0", "--config", routes);
    assertThat(badRoute.status()).isEqualTo(Main.USAGE);
    assertThat(badRoute.err()).startsWith("hostpace: --route ").contains("port 99999",
        "(from 'hostpace.proxy.routes[/p]' in --config '" + routes + "', line 3)");

    CommandRun overridden = CommandRun.of("proxy", "--listen", "127.0.0.1:0", "--config", routes, "--route", "/p=ftp://x");
    assertThat(overridden.status()).isEqualTo(Main.USAGE);
    assertThat(overridden.err()).as("the command line's route, not the file's").contains("ftp://x").doesNotContain("--config");

    String forward = writeConfig("hostpace.proxy.routes[/w]=https://query.wikidata.org\nhostpace.proxy.forward=example.org, Example.net\n");
    CommandRun badKey = CommandRun.of("proxy", "--listen", "127.0.0.1:0", "--config", forward);
    assertThat(badKey.status()).isEqualTo(Main.USAGE);
    assertThat(badKey.err()).contains("--forward", "'Example.net'", "(from 'hostpace.proxy.forward' in --config '" + forward + "', line 2)");
  }
}
