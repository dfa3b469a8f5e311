package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code hostpace sparql} with many queries and updates (SPEC I5): files, folders and globs, all
 * through one engine, each query's results in a file of {@code --output-dir} that holds what a run
 * of the query alone prints, a summary line per query, against embedded Fuseki on 127.0.0.1.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT)
class SparqlBatchTest extends CommandTest {

  static final String PEOPLE = "PREFIX ex: <http://example.org/>\nSELECT ?s ?name WHERE { ?s ex:name ?name } ORDER BY ?s\n";
  static final String ADA = "ASK { ?s ?p \"Ada\" }\n";
  static final String LABELS = "CONSTRUCT { ?s <http://example.org/label> ?n } WHERE { ?s <http://example.org/name> ?n }\n";
  static final String NAMES = "SELECT ?name WHERE { ?s <http://example.org/name> ?name } ORDER BY ?name\n";

  /** What {@code sparql} prints for {@code query} alone, as bytes. */
  byte[] alone(String endpoint, Path query, String... options) {
    List<String> args = new ArrayList<>(List.of("sparql", "--endpoint", endpoint, "--query-file", query.toString()));
    args.addAll(List.of(options));
    assertThat(run(args.toArray(new String[0]))).as(err).isZero();
    return out.getBytes(StandardCharsets.UTF_8);
  }

  static Path write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, text);
  }

  @Test
  void I5_aFolderAndAGlobOfQueriesWriteEachQuerysResultsAsARunOfItAlonePrintsThem(@TempDir Path dir) throws IOException {
    Path people = write(dir.resolve("queries/people.rq"), PEOPLE);
    Path ada = write(dir.resolve("queries/ada.rq"), ADA);
    Path labels = write(dir.resolve("queries/labels.sparql"), LABELS);
    write(dir.resolve("queries/notes.txt"), "not a query");
    Path names = write(dir.resolve("more/names.rq"), NAMES);
    Path results = dir.resolve("results");
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.open())) {
      String url = endpoint.sparql().toString();

      for (String format : List.of("table", "csv", "json")) {
        int status = run("sparql", "--endpoint", url, "--query-file", dir.resolve("queries").toString(),
            "--query-file", dir.resolve("more") + "/*.rq", "--output-dir", results.toString(), "--format", format);

        assertThat(status).as(err).isZero();
        assertThat(out).isEmpty();
        String[] extensions = switch (format) {
          case "table" -> new String[] {"txt", "txt", "ttl", "txt"};
          case "csv" -> new String[] {"csv", "csv", "nt", "csv"};
          default -> new String[] {"json", "json", "jsonld", "json"};
        };
        assertThat(results.resolve("people." + extensions[0])).hasBinaryContent(alone(url, people, "--format", format));
        assertThat(results.resolve("ada." + extensions[1])).hasBinaryContent(alone(url, ada, "--format", format));
        assertThat(results.resolve("labels." + extensions[2])).hasBinaryContent(alone(url, labels, "--format", format));
        assertThat(results.resolve("names." + extensions[3])).hasBinaryContent(alone(url, names, "--format", format));
      }
      try (Stream<Path> files = Files.list(results)) {
        assertThat(files.map(file -> file.getFileName().toString())).as("no temporary file is left")
            .allMatch(name -> !name.startsWith("."));
      }
      run("sparql", "--endpoint", url, "--query-file", dir.resolve("queries").toString(),
          "--query-file", dir.resolve("more") + "/*.rq", "--output-dir", results.toString());
      // A line per query as it ends, in any order; the total last.
      List<String> lines = err.lines().map(line -> line.replaceFirst("([,n]) [0-9.]+ s$", "$1 T s")).toList();
      assertThat(lines.subList(0, lines.size() - 1)).containsExactlyInAnyOrder(
          "ada: ok, yes, 1 attempt, 0 refusals, T s",
          "labels: ok, 2 triples, 1 attempt, 0 refusals, T s",
          "people: ok, 2 rows, 1 attempt, 0 refusals, T s",
          "names: ok, 2 rows, 1 attempt, 0 refusals, T s");
      assertThat(lines).last().isEqualTo("total: 4 queries, 4 ok, 0 failed, 4 attempts, 0 refusals, in T s");
    }
  }

  @Test
  void I5_anUpdateRunsBeforeTheQueriesWhichSeeWhatItInserted(@TempDir Path dir) throws IOException {
    Path insert = write(dir.resolve("load/insert.ru"),
        "INSERT DATA { <http://example.org/c> <http://example.org/name> \"Cid\" }\n");
    write(dir.resolve("check/names.rq"), NAMES);
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.open())) {
      String dataset = endpoint.sparql().resolve("/ds").toString(); // Fuseki takes queries and updates there

      int status = run("sparql", "--endpoint", dataset, "--update-file", insert.toString(),
          "--query-file", dir.resolve("check") + "/*.rq", "--output-dir", dir.resolve("results").toString(), "--format", "csv");

      assertThat(status).as(err).isZero();
      assertThat(dir.resolve("results/names.csv")).content().isEqualToNormalizingNewlines("name\nAda\nBea\nCid\n");
      assertThat(err).startsWith("insert: ok, 1 attempt, 0 refusals, ")
          .contains("\nnames: ok, 3 rows, 1 attempt, 0 refusals, ")
          .containsPattern("\ntotal: 1 query and 1 update, 2 ok, 0 failed, 2 attempts, 0 refusals, in [0-9.]+ s\n$");
    }
  }

  @Test
  void I5_aQueryThatFailsAmongGoodOnesExitsOneItsLineSaysWhyAndTheOthersFilesAreWritten(@TempDir Path dir)
      throws IOException {
    int closed = CommandRun.closedPort();
    Path queries = dir.resolve("queries");
    write(queries.resolve("people.rq"), PEOPLE);
    write(queries.resolve("names.rq"), NAMES);
    // Valid SPARQL, which the endpoint fails: the service it asks has nothing listening.
    write(queries.resolve("remote.rq"), "SELECT * { SERVICE <http://127.0.0.1:" + closed + "/sparql> { ?s ?p ?o } }\n");
    Path results = dir.resolve("results");
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.open())) {
      int status = run("sparql", "--endpoint", endpoint.sparql().toString(), "--query-file", queries.toString(),
          "--output-dir", results.toString(), "--retries", "0");

      assertThat(status).as(err).isEqualTo(1);
      assertThat(results.resolve("people.txt")).exists();
      assertThat(results.resolve("names.txt")).exists();
      try (Stream<Path> files = Files.list(results)) {
        assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder("people.txt", "names.txt");
      }
      assertThat(err.lines().filter(line -> line.startsWith("remote: ")).toList()).singleElement().asString()
          .matches("remote: the endpoint answered [45][0-9][0-9]: .*, 1 attempt, 0 refusals, [0-9.]+ s");
      assertThat(err).containsPattern("\ntotal: 3 queries, 2 ok, 1 failed, 3 attempts, 0 refusals, in [0-9.]+ s\n$");
    }
  }

  /** A file's name is the query's kind for the engine, which refuses a tab: the name is shown escaped. */
  @Test
  void I5_aQueryFileWhoseNameHasATabOrALineBreakRuns(@TempDir Path dir) throws IOException {
    Path queries = dir.resolve("queries");
    write(queries.resolve("people\tby name.rq"), PEOPLE);
    write(queries.resolve("ada\n.rq"), ADA);
    Path results = dir.resolve("results");
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.open())) {
      int status = run("sparql", "--endpoint", endpoint.sparql().toString(), "--query-file", queries.toString(),
          "--output-dir", results.toString());

      assertThat(status).as(err).isZero();
      assertThat(err).contains("total: 2 queries, 2 ok, 0 failed");
    }
  }

  /** The 20 queries the batch tests send, in {@code dir}/queries. */
  static Path twentyQueries(Path dir) throws IOException {
    Path queries = dir.resolve("queries");
    for (int i = 1; i <= 20; i++) {
      write(queries.resolve(String.format("q%02d.rq", i)), "SELECT ?name WHERE { ?s <http://example.org/name> ?name } LIMIT " + i + "\n");
    }
    return queries;
  }

  /** Runs the 20 queries as one batch against {@code endpoint}; returns the refusals it met. */
  long batch(GatedEndpoint endpoint, Path queries, Path results) throws IOException {
    int status = run("sparql", "--endpoint", endpoint.sparql().toString(), "--query-file", queries.toString(),
        "--output-dir", results.toString(), "--format", "csv");

    assertThat(status).as(err).isZero();
    try (Stream<Path> files = Files.list(results)) {
      assertThat(files.count()).isEqualTo(20);
    }
    assertThat(err).contains("total: 20 queries, 20 ok, 0 failed");
    long refusals = endpoint.refusals();
    assertThat(err).contains(Counted.of(refusals, "refusal", "refusals") + ", in ");
    return refusals;
  }

  /**
   * A batch of 20 queries to an endpoint that serves one request every 200 ms and refuses the
   * rest with a bare 429, as QLever does: every query completes, and the summary counts the
   * refusals the endpoint counted.
   */
  @Test
  void I5_aBatchOfTwentyQueriesToAnEndpointThatRefusesAllComplete(@TempDir Path dir) throws IOException {
    Path queries = twentyQueries(dir);
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.oneEvery(Duration.ofMillis(200)))) {
      batch(endpoint, queries, dir.resolve("results"));
    }
  }

  /**
   * The measurement the batch is for: the same 20 queries sent as 20 runs of one query each
   * (each a fresh engine that learns the endpoint from scratch) and as one batch. Every query
   * completes both ways; the batch, which learns the endpoint once, is refused less. Tagged
   * {@code wall-clock}: whether a run's first request comes within 200 ms of the run before
   * depends on how fast the machine starts a run. Prints both counts.
   */
  @Test
  @Tag("wall-clock")
  void I5_aBatchOfTwentyQueriesIsRefusedLessThanTwentyRunsOfOne(@TempDir Path dir) throws IOException {
    Path queries = twentyQueries(dir);
    Duration interval = Duration.ofMillis(200);
    long separateRefusals;
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.oneEvery(interval))) {
      List<Path> files;
      try (Stream<Path> listed = Files.list(queries)) {
        files = listed.sorted().toList();
      }
      for (Path query : files) {
        assertThat(run("sparql", "--endpoint", endpoint.sparql().toString(), "--query-file", query.toString(),
            "--format", "csv")).as("%s: %s", query, err).isZero();
        assertThat(out.lines()).first().isEqualTo("name");
      }
      separateRefusals = endpoint.refusals();
    }
    long batchRefusals;
    try (GatedEndpoint endpoint = GatedEndpoint.start(SparqlCommandTest.dataset(), Gate.oneEvery(interval))) {
      batchRefusals = batch(endpoint, queries, dir.resolve("results"));
    }
    System.out.println("sparql, 20 queries, one served every 200 ms: 20 runs of one query refused "
        + separateRefusals + " times, one batch " + batchRefusals + " times");
    assertThat(batchRefusals).isLessThan(separateRefusals);
  }
}
