package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.redis.testing.RedisServer;
import io.lettuce.core.AclCategory;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every usage error of every command (SPEC I5): one line on standard error that starts with
 * {@code hostpace:} and names the option, exit status 2, no stack trace and no exception's class,
 * nothing on standard output, and nothing fetched. In the arguments, {@code {url}} is a URL of a
 * server on 127.0.0.1 that counts what it is sent, {@code {dir}} a folder that holds
 * {@code folder/}, {@code file.txt}, {@code latin1.txt} (not UTF-8), {@code bad.json}, and the
 * queries {@code a/people.rq}, {@code b/people.rq}, {@code b/places.rq}, {@code b/wrong.sparql} and
 * updates {@code b/insert.ru}, {@code b/wrong.ru},
 * {@code {scenario}} a shipped pacing scenario, and {@code {closed}} a port nothing listens on.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT) // it runs sparql too, whose first use starts Jena
class BadInputTest {

  static final Path SCENARIO = Path.of("..", "hostpace-simulator", "scenarios", "pacing", "fast-host.json");

  static LocalServer server;
  static Path dir;
  static int closed;

  @BeforeAll
  static void start() throws IOException {
    server = new LocalServer();
    dir = Files.createTempDirectory("hostpace-bad-input");
    Files.createDirectory(dir.resolve("folder"));
    Files.writeString(dir.resolve("file.txt"), "a file\n");
    Files.write(dir.resolve("latin1.txt"), new byte[] {'a', (byte) 0xe9, '\n'});
    Files.writeString(dir.resolve("bad.json"), "{ not json");
    Files.createDirectories(dir.resolve("a"));
    Files.createDirectories(dir.resolve("b"));
    Files.writeString(dir.resolve("a/people.rq"), "SELECT * { ?s ?p ?o }");
    Files.writeString(dir.resolve("b/people.rq"), "ASK {}");
    Files.writeString(dir.resolve("b/places.rq"), "ASK {}");
    Files.writeString(dir.resolve("b/wrong.sparql"), "SELECT * WHERE {\n  ?s ?p \n");
    Files.writeString(dir.resolve("b/insert.ru"), "INSERT DATA { <http://example.org/a> <http://example.org/b> 1 }");
    Files.writeString(dir.resolve("b/wrong.ru"), "INSERT DATA { <http://example.org/a> }");
    closed = CommandRun.closedPort();
  }

  @AfterAll
  static void stop() throws IOException {
    server.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    }
  }

  @BeforeEach
  void forget() {
    server.requests.clear();
  }

  static Stream<Arguments> usageErrors() {
    return Stream.of(
        // fetch: limits
        fetch("--max-in-flight", "0"),
        fetch("--max-in-flight", "-1"),
        fetch("--max-in-flight", "99999999999"),
        fetch("--max-in-flight", "many"),
        fetch("--max-rate", "NaN"),
        fetch("--max-rate", "Infinity"),
        fetch("--max-rate", "-1"),
        fetch("--max-rate", "0"),
        fetch("--max-rate", "1e400"),
        fetch("--max-rate", "1e-400"),
        fetch("--max-rate", "1e10"),
        fetch("--max-rate", "1e2"),
        fetch("--max-rate", "+2"),
        fetch("--max-rate", "\u0663"),
        fetch("--max-rate", ""),
        fetch("--host", ""),
        fetch("--host", "=inFlight:1"),
        fetch("--host", "a.org="),
        fetch("--host", "a.org=inFlight:0"),
        fetch("--host", "a.org=perSecond:NaN"),
        fetch("--host", "a.org=perSecond:1e400"),
        fetch("--host", "a\nb.org=inFlight:1"),
        fetch("--host", "a.org=inFlight:1\u001b[2J"),
        // fetch: retries and durations
        fetch("--retries", "-1"),
        fetch("--retries", "101"),
        fetch("--retries", "2147483648"),
        fetch("--retries", "+3"),
        fetch("--retries", "\u0663"),
        fetch("--retry-delay-limit", "-1"),
        fetch("--retry-delay-limit", "NaN"),
        fetch("--retry-delay-limit", "1e-10"),
        fetch("--retry-delay-limit", "1e99"),
        fetch("--retry-delay-limit", "1e99999999999"),
        fetch("--retry-delay-limit", ""),
        fetch("--timeout", "0"),
        fetch("--timeout", "+5"),
        fetch("--timeout", "5e1s"),
        fetch("--timeout", "-5"),
        fetch("--timeout", "1e-10"),
        fetch("--timeout", "0.0009"),
        fetch("--timeout", "Infinity"),
        fetch("--timeout", "31536001"),
        fetch("--timeout", " "),
        fetch("--timeout", "30x"),
        fetch("--timeout", "ms"),
        fetch("--timeout", "-1s"),
        fetch("--timeout", "0.5us"),
        fetch("--retry-delay-limit", "2 days"),
        usage("--timeout", "fetch", "--timeout-policy", "adaptive", "--timeout", "1e-9", "{url}"),
        fetch("--timeout-policy", "nope"),
        // fetch: the User-Agent, the method and headers
        fetch("--user-agent", ""),
        fetch("--user-agent", " "),
        fetch("--user-agent", "me\nX-Injected: yes"),
        fetch("--user-agent", "me\u0001"),
        fetch("--user-agent", "me \u20ac"),
        fetch("--method", ""),
        fetch("--method", "GE T"),
        fetch("--method", "G\u0001ET"),
        fetch("--method", "CONNECT"),
        fetch("--method", "connect"),
        fetch("--method", " Connect "),
        fetch("--header", ""),
        fetch("--header", ":value"),
        fetch("--header", "Accept"),
        fetch("--header", "Na me: v"),
        fetch("--header", "X\u0001: v"),
        fetch("--header", "X-A: a\nb"),
        fetch("--header", "X-A: \u001b[31mred"),
        fetch("--header", "X-A: \u20ac"),
        fetch("--header", "Host: example.org"),
        // fetch: files
        fetch("--data", "@"),
        fetch("--data", "@{dir}/missing"),
        fetch("--data", "@{dir}/folder"),
        fetch("--data", "@a\u0000b"),
        usage("--input", "fetch", "--input", "{dir}/missing"),
        usage("--input", "fetch", "--input", "{dir}/folder"),
        usage("--input", "fetch", "--input", ""),
        usage("--input", "fetch", "--input", "{dir}/latin1.txt"),
        usage("--input", "fetch", "--input", "a\u0000b"),
        fetch("--output", "{dir}/folder"),
        fetch("--output", "{dir}/file.txt/records.jsonl"),
        fetch("--output", ""),
        fetch("--output", "a\u0000b"),
        fetch("--save", "{dir}/file.txt"),
        fetch("--save", "{dir}/file.txt/pages"),
        fetch("--save", ""),
        usage("--resume needs --output", "fetch", "--resume", "{url}"),
        usage("--resume: --output", "fetch", "--resume", "--output", "{dir}/file.txt", "{url}"),
        fetch("--state", "{dir}/folder"),
        fetch("--state", "{dir}/file.txt/state.tsv"),
        fetch("--state", ""),
        fetch("--state", "{dir}/latin1.txt"),
        // fetch: the fleet
        fetch("--fleet", ""),
        fetch("--fleet", "a\nb"),
        usage("--redis", "fetch", "--redis", "redis://127.0.0.1:{closed}", "{url}"),
        usage("--redis", "fetch", "--fleet", "crawlers", "--redis", "redis://127.0.0.1:{closed}", "{url}"),
        usage("--redis", "fetch", "--fleet", "crawlers", "--redis", "", "{url}"),
        usage("--redis", "fetch", "--fleet", "crawlers", "--redis", "http://127.0.0.1:{closed}", "{url}"),
        usage("--redis: redis URI 'redis-socket:///tmp/redis.sock' is a Unix socket's", "fetch", "--fleet", "crawlers",
            "--redis", "redis-socket:///tmp/redis.sock", "{url}"),
        usage("--redis-cluster: redis URI 'redis-socket:///tmp/redis.sock' is a Unix socket's", "fetch", "--fleet",
            "crawlers", "--redis-cluster", "redis-socket:///tmp/redis.sock", "{url}"),
        usage("--redis-cluster", "fetch", "--redis-cluster", "redis://127.0.0.1:{closed}", "{url}"),
        usage("--redis-cluster", "fetch", "--fleet", "crawlers", "--redis-cluster", "redis://127.0.0.1:{closed}", "{url}"),
        usage("--redis-cluster", "fetch", "--fleet", "crawlers", "--redis-cluster", "http://127.0.0.1:{closed}", "{url}"),
        usage("--fleet-lease needs --fleet NAME", "fetch", "--fleet-lease", "30s", "{url}"),
        usage("--fleet-lease 'soon' is not a duration", "fetch", "--fleet", "crawlers", "--fleet-lease", "soon", "{url}"),
        usage("--fleet-lease must be 1s to a day, got 500ms", "fetch", "--fleet", "crawlers", "--fleet-lease", "500ms", "{url}"),
        usage("--fleet-lease must be 1s to a day, got 2d", "fetch", "--fleet", "crawlers", "--fleet-lease", "2d", "{url}"),
        usage("--fleet-lease must be 1s to a day, got 0", "fetch", "--fleet", "crawlers", "--fleet-lease", "0", "{url}"),
        usage("--fleet-lease must be 1s to a day, got -5s", "fetch", "--fleet", "crawlers", "--fleet-lease", "-5s", "{url}"),
        // fetch: the rest
        usage("no URL", "fetch"),
        usage("--frobnicate", "fetch", "--frobnicate", "{url}"),
        usage("--bogus", "fetch", "--bogus\u001b[2J", "{url}"),
        usage("--max-rate", "fetch", "{url}", "--max-rate"),
        // sparql
        usage("--endpoint", "sparql", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "ftp://example.org/sparql", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "http:sparql", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "http://a b/sparql", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "http://127.1/sparql", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "http://a_b.example.org/sparql", "--query", "ASK {}"),
        usage("--endpoint", "sparql", "--endpoint", "http://127.0.0.1:port/sparql", "--query", "ASK {}"),
        usage("--query", "sparql", "--endpoint", "{url}"),
        usage("--query", "sparql", "--endpoint", "{url}", "--query", "ASK {}", "--query-file", "{dir}/file.txt"),
        usage("syntax error", "sparql", "--endpoint", "{url}", "--query", "SELEC * {}"),
        usage("--query-file", "sparql", "--endpoint", "{url}", "--query-file", "{dir}/missing.rq"),
        usage("--query-file", "sparql", "--endpoint", "{url}", "--query-file", "{dir}/folder"),
        usage("--query-file", "sparql", "--endpoint", "{url}", "--query-file", "{dir}/latin1.txt"),
        usage("--query-file", "sparql", "--endpoint", "{url}", "--query-file", ""),
        usage("--query-file '{dir}/a/*.sparql' matches no file", "sparql", "--endpoint", "{url}",
            "--query-file", "{dir}/a/*.sparql", "--output-dir", "{dir}/out"),
        usage("--query-file '{dir}/a/people.rq' and --query-file '{dir}/b/people.rq' both have the name 'people'",
            "sparql", "--endpoint", "{url}", "--query-file", "{dir}/a/people.rq", "--query-file", "{dir}/b/*.rq",
            "--output-dir", "{dir}/out"),
        usage("--query-file gives 2 queries: their results need --output-dir DIR", "sparql", "--endpoint", "{url}",
            "--query-file", "{dir}/a", "--query-file", "{dir}/b/places.rq"),
        usage("--query with --update-file: the query's results need --output-dir DIR", "sparql", "--endpoint", "{url}",
            "--query", "ASK {}", "--update-file", "{dir}/b/insert.ru"),
        usage("--query-file '{dir}/b/wrong.sparql': query syntax error at line 2, column 9", "sparql",
            "--endpoint", "{url}", "--query-file", "{dir}/b", "--output-dir", "{dir}/out"),
        usage("--update-file '{dir}/b/wrong.ru': update syntax error at line 1, column ", "sparql",
            "--endpoint", "{url}", "--update-file", "{dir}/b/*.ru"),
        usage("--update-file '{dir}/folder' is a folder that holds no .ru file", "sparql", "--endpoint", "{url}",
            "--update-file", "{dir}/folder"),
        usage("--format", "sparql", "--endpoint", "{url}", "--query", "ASK {}", "--format", "xml"),
        usage("--timeout", "sparql", "--endpoint", "{url}", "--query", "ASK {}", "--timeout", "1e-10"),
        usage("--user-agent", "sparql", "--endpoint", "{url}", "--query", "ASK {}", "--user-agent", "a\nb"),
        usage("--state", "sparql", "--endpoint", "{url}", "--query", "ASK {}", "--state", "{dir}/folder"),
        // demo
        usage("--queries", "demo", "--queries", "0"),
        usage("--queries", "demo", "--queries", "201"),
        usage("--queries", "demo", "--queries", "-1"),
        usage("--queries", "demo", "--queries", "1e3"),
        // simulate
        usage("simulation is missing", "simulate"),
        usage("SCENARIO", "simulate", "timeouts"),
        usage("SCENARIO '", "simulate", "timeouts", "{dir}/missing.json"),
        usage("'qlever-lik' is neither a file nor a shipped pacing scenario: expected a file or one of bucket-burst-10, ", "simulate", "pacing", "qlever-lik"),
        usage("qlever-like", "simulate", "timeouts", "qlever-like"),
        usage("SCENARIO '", "simulate", "timeouts", "{dir}/folder"),
        usage("SCENARIO is empty", "simulate", "timeouts", ""),
        usage("SCENARIO '", "simulate", "timeouts", "{dir}/latin1.txt"),
        usage("bad.json", "simulate", "timeouts", "{dir}/bad.json"),
        usage("SCENARIO '", "simulate", "pacing", "{dir}/folder"),
        usage("bad.json", "simulate", "pacing", "{dir}/bad.json"),
        usage("--chart", "simulate", "pacing", "{scenario}", "--chart", "{dir}/folder"),
        // the command itself
        usage("command is missing"),
        usage("'nope'", "nope"));
  }

  /** {@code hostpace fetch OPTION VALUE {url}}, whose message names {@code OPTION}. */
  static Arguments fetch(String option, String value) {
    return usage(option, "fetch", option, value, "{url}");
  }

  static Arguments usage(String names, String... args) {
    return Arguments.of(args.length == 0 ? "(no command)" : Printable.escaped(String.join(" ", args)), names, args);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("usageErrors")
  void I5_aUsageErrorIsOneLineNamingTheOptionExitStatusTwoAndNothingFetched(String shown, String names, String[] args) {
    String[] given = new String[args.length];
    for (int i = 0; i < args.length; i++) {
      given[i] = args[i].replace("{url}", server.url("/ok")).replace("{dir}", dir.toString())
          .replace("{closed}", String.valueOf(closed))
          .replace("{scenario}", SCENARIO.toString());
    }
    CommandRun ran = CommandRun.of(given);

    assertThat(ran.status()).as(ran.err()).isEqualTo(Main.USAGE);
    assertThat(ran.err()).endsWith("\n");
    assertThat(ran.err().lines()).hasSize(1);
    assertThat(ran.err()).startsWith("hostpace: ").contains(names.replace("{dir}", dir.toString()))
        .doesNotContain("Exception").doesNotContain("\tat ")
        .doesNotContainPattern("\\b(java|javax|sun|picocli|io\\.lettuce)\\.[a-z]+\\.")
        .doesNotContain("\u0000").doesNotContain("\u001b").doesNotContain("\r");
    assertThat(ran.out()).isEmpty();
    assertThat(server.requests).isEmpty();
  }

  /** The methods Java's client refuses to send, said in one line that says which it does send. */
  @Test
  void I5_aMethodTheClientCannotSendIsAUsageErrorThatSaysWhichItCan() {
    CommandRun ran = CommandRun.of("fetch", "--method", "connect", server.url("/ok"));

    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertThat(ran.err()).isEqualTo("hostpace: --method 'connect' cannot be used: Java's HTTP client does not send "
        + "CONNECT; expected GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE or another name of letters, digits, "
        + "'-' and '_', in any case\n");
    assertThat(CommandRun.of("fetch", "--method", "GE T", server.url("/ok")).err())
        .isEqualTo("hostpace: --method 'GE T' is not a method name: expected GET, HEAD, POST, PUT, DELETE, OPTIONS, "
            + "PATCH, TRACE or another name of letters, digits, '-' and '_', in any case\n");
    assertThat(server.requests).isEmpty();
  }

  /** A host Java's URI reads as no host at all: the line says what to write instead. */
  @Test
  void I5_anEndpointWhoseHostJavaDoesNotTakeSaysWhatToWrite() {
    assertThat(CommandRun.of("sparql", "--endpoint", "http://127.1/sparql", "--query", "ASK {}").err())
        .isEqualTo("hostpace: --endpoint 'http://127.1/sparql': the host '127.1' is not one Java's HTTP client "
            + "accepts: write the IP address in full, four numbers such as 127.0.0.1\n");
    assertThat(CommandRun.of("sparql", "--endpoint", "http://a_b.example.org/sparql", "--query", "ASK {}").err())
        .isEqualTo("hostpace: --endpoint 'http://a_b.example.org/sparql': the host 'a_b.example.org' is not one Java's "
            + "HTTP client accepts: a host name is letters, digits and '-' between dots, its last part starting with "
            + "a letter\n");
    assertThat(CommandRun.of("sparql", "--endpoint", "http://127.0.0.1:port/sparql", "--query", "ASK {}").err())
        .isEqualTo("hostpace: --endpoint 'http://127.0.0.1:port/sparql': the port 'port' is not a number\n");
  }

  /**
   * A Redis that is reached but runs no script of the fleet (here a user without scripting) is a
   * usage error, as one that cannot be reached is: the line names the option and what Redis said.
   */
  @Test
  void S5_aRedisThatRefusesTheFleetsScriptsIsAUsageErrorThatSaysWhatToDo() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      RedisClient client = RedisClient.create(redis.uri());
      try (var connection = client.connect()) {
        connection.sync().aclSetuser("noscripts", new AclSetuserArgs().on().addPassword("secret").allKeys().allChannels()
            .allCommands().removeCategory(AclCategory.SCRIPTING));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      String uri = "redis://noscripts:secret@127.0.0.1:" + redis.port();
      CommandRun ran = CommandRun.of("fetch", "--fleet", "crawlers", "--redis", uri, server.url("/ok"));

      assertThat(ran.status()).as(ran.err()).isEqualTo(Main.USAGE);
      assertThat(ran.err()).startsWith("hostpace: --redis 'redis://***@127.0.0.1:" + redis.port()
          + "': fleet 'crawlers': Redis refused its scripts (NOPERM").contains("the ACL category scripting")
          .doesNotContain("cannot be reached").doesNotContain("secret");
      assertThat(ran.err().lines()).hasSize(1);
      assertThat(server.requests).isEmpty();
    }
  }

  /** A host given twice: its rates as written, not as their intervals' nanoseconds make them. */
  @Test
  void I5_aHostGivenTwiceShowsItsRatesAsWritten() {
    CommandRun ran = CommandRun.of("fetch", "--host", "a.org=perSecond:3", "--host", "a.org=rate:100/m", server.url("/ok"));

    assertThat(ran.status()).isEqualTo(Main.USAGE);
    assertThat(ran.err()).contains("{rate: 100/m} is given twice: 'a.org' has {rate: 3/s} already");
  }
}
