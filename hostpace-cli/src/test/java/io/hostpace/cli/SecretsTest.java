package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Nothing secret is printed (SPEC I5): not the password of a URI's user info (in {@code --redis},
 * a URL, {@code --endpoint}), not the value of a header that carries credentials, in a usage
 * error, a record, the summary or a failure. Each test looks for the secret itself, in standard
 * output and standard error both; and an echoed control character is escaped.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT) // it runs sparql too
class SecretsTest {

  static final String SECRET = "SECRET";

  final LocalServer server;
  final int closed;

  SecretsTest() throws IOException {
    server = new LocalServer();
    closed = CommandRun.closedPort();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  static CommandRun run(String... args) {
    return CommandRun.of(args);
  }

  static void assertNoSecret(CommandRun ran, String secret) {
    assertThat(ran.out()).doesNotContain(secret);
    assertThat(ran.err()).doesNotContain(secret);
  }

  @Test
  void I5_aRedisThatCannotBeReachedIsNamedWithoutItsPassword() {
    CommandRun ran = run("fetch", "--fleet", "crawlers", "--redis", "redis://user:" + SECRET + "@127.0.0.1:" + closed,
        server.url("/ok"));

    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertThat(ran.err()).startsWith("hostpace: --redis 'redis://***@127.0.0.1:" + closed + "' cannot be reached");
    assertNoSecret(ran, SECRET);

    ran = run("fetch", "--fleet", "crawlers", "--redis", "rediss://:SE@CRET@127.0.0.1:" + closed, server.url("/ok"));
    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertNoSecret(ran, "CRET");

    ran = run("fetch", "--fleet", "crawlers", "--redis", "http://user:" + SECRET + "@127.0.0.1:" + closed, server.url("/ok"));
    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertNoSecret(ran, SECRET);
    assertThat(server.requests).isEmpty();
  }

  @Test
  void I5_aBadHeaderThatCarriesCredentialsIsNamedWithoutItsValue() {
    for (String header : new String[] {"Authorization: Bearer " + SECRET + "\u0001", "Authorization Bearer " + SECRET,
        "Proxy-Authorization: Basic " + SECRET + "\rx", "Cookie: session=" + SECRET + "\nx", "X-Api-Key: " + SECRET + "\u20ac",
        "Authorization=" + SECRET}) {
      CommandRun ran = run("fetch", "--header", header, server.url("/ok"));

      assertThat(ran.status()).as(header).isEqualTo(Main.USAGE);
      assertThat(ran.err().lines()).as(header).hasSize(1);
      assertNoSecret(ran, SECRET);
    }
    CommandRun ran = run("fetch", "--header", "Authorization: Bearer " + SECRET + "\u0001", server.url("/ok"));
    assertThat(ran.err()).isEqualTo("hostpace: --header 'Authorization: ***': the value has a control character \\x01 at index 13\n");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void I5_aUrlsPasswordIsInNoRecordNoSummaryAndNoError(@TempDir Path dir) throws IOException {
    String answered = server.url("/ok").replace("http://", "http://user:" + SECRET + "@");
    String refused = "http://user:" + SECRET + "@127.0.0.1:" + closed + "/";
    String invalid = "http://user:" + SECRET + "@exa mple.org/";
    Path list = Files.writeString(dir.resolve("urls.txt"), "http://" + SECRET + "@127.0.0.1:" + closed + "/from-a-file\n");

    CommandRun ran = run("fetch", "--input", list.toString(), answered, refused, invalid);

    assertThat(ran.status()).isEqualTo(Main.FAILED);
    assertThat(ran.out().lines()).hasSize(4)
        .anySatisfy(line -> assertThat(line).startsWith("{\"url\":\"http://***@127.0.0.1:").contains("\"status\":200"))
        .anySatisfy(line -> assertThat(line).startsWith("{\"url\":\"http://***@exa mple.org/\"").contains("\"error\":\"invalid URL"));
    assertNoSecret(ran, SECRET);
    assertThat(server.requests).containsExactly("GET /ok");

    Path output = dir.resolve("records.jsonl");
    ran = run("fetch", "--output", output.toString(), answered, invalid);
    assertThat(Files.readString(output)).contains("http://***@").doesNotContain(SECRET);
    assertNoSecret(ran, SECRET);
  }

  @Test
  void I5_anEndpointsPasswordIsInNoUsageErrorAndNoFailure() {
    CommandRun ran = run("sparql", "--endpoint", "http://user:" + SECRET + "@a b/sparql", "--query", "ASK {}");
    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertThat(ran.err()).startsWith("hostpace: --endpoint 'http://***@a b/sparql' is not a URL");
    assertNoSecret(ran, SECRET);

    ran = run("sparql", "--endpoint", "http://user:" + SECRET + "@127.0.0.1:" + closed + "/sparql", "--query", "ASK {}");
    assertThat(ran.status()).isEqualTo(Main.FAILED);
    assertThat(ran.err().lines()).hasSize(1);
    assertNoSecret(ran, SECRET);
  }

  @Test
  void I5_aControlCharacterInAnEchoedValueIsEscapedSoTheMessageStaysOneLine() {
    CommandRun ran = run("fetch", "--user-agent", "me\nX-Injected: yes", server.url("/ok"));

    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertThat(ran.err()).isEqualTo("hostpace: --user-agent 'me\\nX-Injected: yes': the value has a control character \\n at index 2\n");

    ran = run("fetch", "--fleet", "night\u001b[2Jly", server.url("/ok"));
    assertThat(ran.err()).startsWith("hostpace: --fleet: fleet name 'night\\x1b[2Jly' has U+001B at index 5");
    assertThat(server.requests).isEmpty();
  }
}
