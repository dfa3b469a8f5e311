package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --config FILE}: the Spring Boot starter's {@code hostpace.*} keys as the command line's
 * options, which override them (SPEC I5). Run in this process against a server on 127.0.0.1, and
 * once as a process of its own for the environment.
 */
class ConfigFileTest extends ServedCommandTest {

  @TempDir Path dir;

  Path config(String... lines) throws IOException {
    return Files.write(dir.resolve("application.properties"), List.of(lines), StandardCharsets.UTF_8);
  }

  @Test
  void I5_theStartersKeysSetTheOptionsOfTheirNamesAndTheApplicationsOwnKeysAreLeftAlone() throws IOException {
    Path state = dir.resolve("hosts.tsv");
    Path file = config(
        "spring.application.name=crawler",
        "server.port=8080",
        "hostpace.hosts[127.0.0.1\\:" + server.port() + "]=inFlight:1",
        "hostpace.retries=1",
        "hostpace.user-agent=crawler/2.0 (ops@example.org)",
        "hostpace.timeout=30s",
        "hostpace.state=" + state,
        "hostpace.rest-client.enabled=false");
    List<String> urls = new ArrayList<>(List.of("fetch", "--config", file.toString(), "--quiet"));
    for (int i = 0; i < 6; i++) {
      urls.add(server.url("/slow?" + i));
    }
    urls.add(server.url("/echo"));

    assertThat(run(urls.toArray(new String[0]))).as(err).isZero();
    assertThat(server.maxInFlight.get()).as("hostpace.hosts[...]=inFlight:1").isEqualTo(1);
    assertThat(server.userAgents).contains("crawler/2.0 (ops@example.org)");
    assertThat(state).as("hostpace.state").exists();
  }

  @Test
  void I5_theCommandLineOverridesTheFileKeyByKeyAndHostByHost() throws IOException {
    Path file = config(
        "hostpace.user-agent=from-the-file/1.0",
        "hostpace.max-in-flight=1",
        "hostpace.hosts[127.0.0.1\\:" + server.port() + "]=inFlight:1");
    // Each /together waits for another beside it (at most a minute): two at once need the flag's limit.
    java.util.concurrent.CountDownLatch two = new java.util.concurrent.CountDownLatch(2);
    server.onRequest.put("/together", () -> {
      two.countDown();
      try {
        two.await(60, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    List<String> args = List.of("fetch", "--config", file.toString(), "--quiet",
        "--user-agent", "from-the-flag/1.0", "--host", "127.0.0.1:" + server.port() + "=inFlight:4",
        "--max-in-flight", "4", server.url("/ok"), server.url("/together?1"), server.url("/together?2"));

    assertThat(run(args.toArray(new String[0]))).as(err).isZero();
    assertThat(server.userAgents).containsOnly("from-the-flag/1.0");
    assertThat(server.maxInFlight.get()).as("the flag's inFlight:4, not the file's 1").isGreaterThan(1);
  }

  @Test
  void I5_keysAreMatchedAsSpringBootMatchesThemAndARetryCountFromTheFileIsKept() throws IOException {
    Path file = config("hostpace.maxInFlight=2", "HOSTPACE.RETRIES=0");

    assertThat(run("fetch", "--config", file.toString(), "--quiet", server.url("/refuse-once"))).isEqualTo(0);
    assertThat(out).contains("\"status\":429,\"attempts\":1");
    assertThat(server.seen.get("/refuse-once").get()).isEqualTo(1);
  }

  /** Each key's value reaches its option: a wrong one is refused by the option's own check, naming the key. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "hostpace.max-in-flight=0|--max-in-flight must be at least 1, got 0 (from 'hostpace.max-in-flight' in --config",
      "hostpace.max-in-flight=many|--max-in-flight 'many' is not a whole number (from 'hostpace.max-in-flight'",
      "hostpace.max-rate=fast|--max-rate 'fast' is not a decimal number (from 'hostpace.max-rate'",
      "hostpace.retries=500|--retries must be 0 to 100, got 500 (from 'hostpace.retries'",
      "hostpace.retry-delay-limit=soon|--retry-delay-limit 'soon' is not a duration",
      "hostpace.timeout=0|--timeout must be more than zero seconds, got 0 (from 'hostpace.timeout'",
      "hostpace.timeout-policy=clever|--timeout-policy 'clever' is not a policy: expected fixed or adaptive (from 'hostpace.timeout-policy'",
      "hostpace.user-agent= |--user-agent must not be blank (from 'hostpace.user-agent'",
      "hostpace.redis=redis://127.0.0.1:1|--redis needs --fleet NAME: the fleet whose processes share what hosts teach (from 'hostpace.redis'",
      "hostpace.redis-cluster=redis://127.0.0.1:1|--redis-cluster needs --fleet NAME",
      "hostpace.fleet=bad name!|--fleet: fleet name",
      "hostpace.fleet-lease=30s|--fleet-lease needs --fleet NAME: the fleet whose places it leases (from 'hostpace.fleet-lease'",
      "hostpace.hosts[example.org]=inFlight:zero|--host 'example.org=inFlight:zero': ",
      "hostpace.state=/dev/null/state.tsv|--state '/dev/null/state.tsv'",
      "hostpace.max-flights=3|--config '{file}', line 1: 'hostpace.max-flights' is not a key Hostpace reads: expected "
          + "hostpace.hosts[KEY], hostpace.proxy.routes[/PREFIX] or hostpace. followed by max-in-flight, max-rate, retries",
      "hostpace.user-agent=${HOSTPACE_NO_SUCH_VARIABLE}|--config '{file}', line 1: 'hostpace.user-agent' names the environment "
          + "variable HOSTPACE_NO_SUCH_VARIABLE, which is not set (write ${HOSTPACE_NO_SUCH_VARIABLE:DEFAULT}"})
  void I5_aWrongValueInTheFileIsAUsageErrorThatNamesItsKey(String line, String message) throws IOException {
    Path file = config(line);

    assertThat(run("fetch", "--config", file.toString(), server.url("/ok"))).as(err).isEqualTo(2);
    assertThat(err).startsWith("hostpace: " + message.replace("{file}", file.toString()));
    assertThat(err.lines()).hasSize(1);
    assertThat(server.requests).isEmpty();
  }

  /**
   * What is wrong in the file names the line it was written on, as an editor counts lines:
   * comments, blank lines and a value continued on the next line (a line ending in a backslash)
   * counted.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "hostpace.max-flights=3|--config '{file}', line 5: 'hostpace.max-flights' is not a key Hostpace reads",
      "hostpace.user-agent=crawler\\u00zz|--config '{file}', line 5: a \\u escape is not followed by four hexadecimal "
          + "digits (\\u00zz)",
      "hostpace.user-agent=${CRAWLER|--config '{file}', line 5: 'hostpace.user-agent' has a '${' with no '}'",
      "hostpace.maxInFlight=2|--config '{file}', line 5: 'hostpace.maxInFlight' says again what 'hostpace.max-in-flight'"
          + " says on line 2: give one",
      "hostpace.retries=500|--retries must be 0 to 100, got 500 (from 'hostpace.retries' in --config '{file}', line 5)",
      "hostpace.hosts[example.org]=inFlight:zero|--host 'example.org=inFlight:zero': ",
      "hostpace.fleet=bad name!|--fleet: fleet name"})
  void I5_aWrongKeyOrValueInTheFileNamesItsLine(String line, String message) throws IOException {
    Path file = config(
        "# the crawler's settings",
        "hostpace.max-in-flight=4",
        "spring.application.name=crawler \\",
        "    and more",
        line,
        "hostpace.hosts[zzz.example.org]=inFlight:1");

    assertThat(run("fetch", "--config", file.toString(), server.url("/ok"))).as(err).isEqualTo(2);
    assertThat(err).startsWith("hostpace: " + message.replace("{file}", file.toString()));
    assertThat(err).contains("line 5");
    assertThat(err.lines()).hasSize(1);
    assertThat(server.requests).isEmpty();
  }

  /** The proxy's own keys name their line too. */
  @Test
  void I5_aWrongProxyKeyInTheFileNamesItsLine() throws IOException {
    Path file = config("# the proxy", "hostpace.proxy.allow-remote=maybe");

    assertThat(run("proxy", "--config", file.toString(), "--route", "/a=" + server.url("/"))).isEqualTo(2);
    assertThat(err).isEqualTo("hostpace: --allow-remote is true or false, got 'maybe' (from 'hostpace.proxy.allow-remote'"
        + " in --config '" + file + "', line 2)\n");
  }

  /** A --host of the command line that is wrong is the command line's, whatever hosts the file gives. */
  @Test
  void aWrongHostOfTheCommandLineIsNotBlamedOnTheFile() throws IOException {
    Path file = config("hostpace.hosts[a.example.org]=inFlight:1");

    assertThat(run("fetch", "--config", file.toString(), "--host", "b.example.org=inFlight:zero", server.url("/ok")))
        .isEqualTo(2);
    assertThat(err).isEqualTo("hostpace: --host 'b.example.org=inFlight:zero': inFlight 'zero' is not a whole number\n");
  }

  @Test
  void aPlaceholderWithADefaultTakesTheDefaultWhenTheVariableIsUnset() throws IOException {
    Path file = config("hostpace.user-agent=crawler/${HOSTPACE_NO_SUCH_VARIABLE:3.1}");

    assertThat(run("fetch", "--config", file.toString(), "--quiet", server.url("/echo"))).as(err).isZero();
    assertThat(server.userAgents).containsExactly("crawler/3.1");
  }

  @Test
  void durationsAreWrittenAsSpringWritesThemIsoIncluded() throws IOException {
    Path file = config("hostpace.timeout=PT0.5S", "hostpace.retry-delay-limit=1d");

    assertThat(run("fetch", "--config", file.toString(), "--quiet", server.url("/hang"))).isEqualTo(1);
    assertThat(out).contains("\"error\":\"timeout: no response headers within --timeout 0.5 s\"");
    assertThat(run("fetch", "--timeout", "P", server.url("/ok"))).isEqualTo(2);
  }

  @Test
  void aConfigFileThatIsMissingIsAUsageError() {
    Path missing = dir.resolve("missing.properties");

    assertThat(run("fetch", "--config", missing.toString(), server.url("/ok"))).isEqualTo(2);
    assertThat(err).startsWith("hostpace: --config '" + missing + "': it cannot be read: ");
  }

  @Test
  void sparqlTakesTheSameFile() throws IOException {
    Path file = config("hostpace.retries=many");

    assertThat(run("sparql", "--config", file.toString(), "--endpoint", server.url("/sparql"), "--query", "ASK {}"))
        .isEqualTo(2);
    assertThat(err).startsWith("hostpace: --retries 'many' is not a whole number (from 'hostpace.retries'");
  }

  @Test
  void I5_theFleetsRedisComesFromTheEnvironmentAndAPlaceholderToo() throws IOException, InterruptedException {
    int closed = CommandRun.closedPort();
    Path file = config("hostpace.fleet=crawlers", "hostpace.user-agent=crawler/${CRAWLER_VERSION}");
    CommandRun.Exited fetch = CommandRun.inProcessOfItsOwn(
        Map.of("HOSTPACE_REDIS", "redis://:secret@127.0.0.1:" + closed, "CRAWLER_VERSION", "4.2"),
        "fetch", "--config", file.toString(), server.url("/echo"));

    assertThat(fetch.status()).as(fetch.output()).isEqualTo(2);
    assertThat(fetch.output()).startsWith("hostpace: --redis 'redis://***@127.0.0.1:" + closed + "' cannot be reached")
        .contains("(from the environment variable HOSTPACE_REDIS)")
        .doesNotContain("secret");
    assertThat(server.requests).isEmpty();
  }
}
