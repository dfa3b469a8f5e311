package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every command's help ends with its exit codes and examples, and for {@code fetch} and
 * {@code sparql} the codes it documents are those the command returns (SPEC I5). It holds Jena's default client:
 * a {@code sparql} that reaches its endpoint installs the engine there, and one installation
 * at a time is all the JVM allows.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT)
class HelpTest extends ServedCommandTest {

  /** The exit codes a command's help lists, each with what it says; {@code command} is its path, none for the top. */
  Map<Integer, String> exitCodes(String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.add("--help");
    assertThat(run(args.toArray(new String[0]))).isZero();
    int list = out.indexOf("Exit codes:");
    int examples = out.indexOf("Examples:");
    assertThat(list).as(out).isPositive();
    assertThat(examples).as("the examples come last: " + out).isGreaterThan(list);
    Map<Integer, String> codes = new TreeMap<>();
    Matcher code = Pattern.compile("(?m)^\\s+(\\d+)\\s+(.+)$").matcher(out.substring(list, examples));
    while (code.find()) {
      codes.put(Integer.parseInt(code.group(1)), code.group(2));
    }
    return codes;
  }

  String examples() {
    return out.substring(out.indexOf("Examples:"));
  }

  /**
   * Each example is a command as it is pasted: one that goes on to the next line says so with a
   * {@code \\}, and the help's wrapping at 80 columns cut none inside a word or a URL.
   */
  static void assertExamplesAreWhole(String examples) {
    List<String> lines = examples.lines().skip(1).filter(line -> !line.isBlank()).toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      boolean continued = i > 0 && lines.get(i - 1).endsWith("\\");
      assertThat(line).as("an example's line in %s", examples)
          .matches(continued ? "      \\S.*" : "  (hostpace |curl |http_proxy=|source ).*");
    }
  }

  @Test
  void I5_fetchsHelpEndsWithItsExitCodesAndExamplesAndEachCodeIsTheOneItReturns() throws IOException {
    Map<Integer, String> codes = exitCodes("fetch");
    assertThat(codes.keySet()).containsExactly(0, 1, 2, 130);
    assertThat(examples().lines().filter(line -> line.strip().startsWith("hostpace fetch ")).count()).isEqualTo(5);

    assertThat(codes.get(run("fetch", server.url("/ok"), server.url("/missing")))).startsWith("every URL got a whole HTTP answer");
    assertThat(codes.get(run("fetch", "http://127.0.0.1:" + CommandRun.closedPort() + "/"))).startsWith("a URL got no whole answer");
    assertThat(codes.get(run("fetch", "--retries", "-1", server.url("/ok")))).startsWith("a usage error");
    assertThat(server.requests).containsExactlyInAnyOrder("GET /ok", "GET /missing");
    assertThat(codes.get(Main.INTERRUPTED)).startsWith("interrupted (Ctrl-C)");
  }

  @Test
  void I5_sparqlsHelpEndsWithItsExitCodesAndExamplesAndEachCodeIsTheOneItReturns() throws IOException {
    Map<Integer, String> codes = exitCodes("sparql");
    assertThat(codes.keySet()).containsExactly(0, 1, 2, 130);
    assertThat(examples().lines().filter(line -> line.strip().startsWith("hostpace sparql ")).count()).isEqualTo(5);

    assertThat(codes.get(run("sparql", "--endpoint", "http://127.0.0.1:" + CommandRun.closedPort() + "/sparql", "--query", "ASK {}")))
        .startsWith("the query failed");
    assertThat(codes.get(run("sparql", "--endpoint", server.url("/sparql"), "--query", "SELEC * {}")))
        .startsWith("a usage error or a query syntax error");
    assertThat(server.requests).isEmpty();
  }

  /** The names of the subcommands the help in {@link #out} lists, none when it lists none. */
  List<String> subcommands() {
    int list = out.indexOf("Commands:");
    if (list < 0) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    for (String line : out.substring(list).lines().skip(1).takeWhile(line -> !line.isBlank()).toList()) {
      Matcher name = Pattern.compile("^  (\\S+)").matcher(line);
      if (name.find()) {
        names.add(name.group(1));
      }
    }
    return names;
  }

  @Test
  void everyCommandsHelpEndsWithItsExitCodesAndExamples() {
    List<String> checked = new ArrayList<>();
    java.util.Deque<List<String>> commands = new java.util.ArrayDeque<>(List.of(List.of()));
    while (!commands.isEmpty()) {
      List<String> command = commands.pop();
      // Each has a usage error; the proxy, which runs until Ctrl-C, has no 0.
      assertThat(exitCodes(command.toArray(new String[0]))).as(command + ": " + out).containsKey(2);
      assertThat(examples().lines().skip(1).filter(line -> !line.isBlank())).as(command + ": " + out).isNotEmpty();
      assertExamplesAreWhole(examples());
      for (String name : subcommands()) {
        List<String> path = new ArrayList<>(command);
        path.add(name);
        commands.add(path);
      }
      checked.add(String.join(" ", command));
    }
    assertThat(checked).contains("", "fetch", "sparql", "proxy", "demo", "completion", "simulate", "simulate pacing",
        "simulate timeouts", "simulate list");
    assertThat(exitCodes("demo").keySet()).contains(0, 1, 2);
    assertThat(examples()).contains("hostpace demo --fleet");
  }

  @Test
  void theConfigOptionsHelpShowsTheEnvironmentsPlaceholdersAsAFileWritesThem() {
    for (String command : List.of("fetch", "sparql", "proxy")) {
      assertThat(run(command, "--help")).isZero();
      assertThat(out).as(command).contains("${NAME} in a value", "${NAME:default}");
    }
  }

  /**
   * {@code --redis} is read by Lettuce's {@code RedisURI}: its help, in each command that takes
   * it, and the command line's page name every scheme Lettuce declares but its Unix sockets', which
   * need a native transport the command line does not ship.
   */
  @Test
  void S2_redissHelpAndPageNameEveryFormOfRedisUriTheFleetAccepts() throws Exception {
    List<String> schemes = new ArrayList<>();
    for (java.lang.reflect.Field field : io.lettuce.core.RedisURI.class.getFields()) {
      if (field.getName().startsWith("URI_SCHEME_") && !field.getName().contains("SOCKET")) {
        schemes.add(field.get(null) + "://");
      }
    }
    assertThat(schemes).contains("redis://", "rediss://", "redis-sentinel://", "rediss-sentinel://");
    for (String command : List.of("fetch", "sparql", "proxy")) {
      assertThat(run(command, "--help")).isZero();
      assertThat(option(out, "--redis=URI")).as(command).contains(schemes).contains("#MASTER").doesNotContainIgnoringCase("socket");
    }
    String page = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "command-line.md"));
    assertThat(option(page, "--redis URI")).as("docs/command-line.md").contains(schemes).contains("#MASTER")
        .doesNotContainIgnoringCase("socket");
  }

  /** The text of {@code option}'s entry in a list of options, from a line it opens to the next option, its lines joined. */
  static String option(String text, String option) {
    Matcher entry = Pattern.compile("(?m)^\\s*" + Pattern.quote(option) + "\\s").matcher(text);
    assertThat(entry.find()).as(option + " in " + text).isTrue();
    int at = entry.start();
    Matcher next = Pattern.compile("\\n\\s*-").matcher(text);
    int end = next.find(at) ? next.start() : text.length();
    return text.substring(at, end).replaceAll("\\s+", " ");
  }

  /** picocli warns of a footer it cannot format on the JVM's own standard error: a JVM of its own shows it. */
  @Test
  void proxysHelpShowsItsExampleUrlAsWrittenAndWarnsOfNothing() throws Exception {
    Process help = CommandRun.process("proxy", "--help").start();
    String shown = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String warned = new String(help.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(help.waitFor()).isZero();
    assertThat(warned).isEmpty();
    assertThat(shown).contains("  curl 'http://127.0.0.1:8181/wikidata/sparql?query=ASK%7B%7D'");
  }
}
