package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hostpace fetch --save DIR} and {@code --resume} through the command line, against a
 * server on 127.0.0.1 (SPEC I5): bodies kept whole and byte for byte under safe names, only the
 * last answer's, none for a body cut; a resumed run fetches only what was not done, even after
 * the run before was killed outright.
 *
 * <p>Beside {@link LocalServer}'s paths, {@code /bytes/N} answers N bytes (a mix of every byte
 * value, the same for the same path) with a {@code Content-Length}, {@code /chunked/N} the same
 * in chunks, and {@code /stall/N} sends its headers and half its bytes, then nothing more until
 * the test ends.
 */
class FetchSaveTest extends ServedCommandTest {

  static final int MB = 1 << 20;

  @TempDir Path root;
  final CountDownLatch ended = new CountDownLatch(1);
  /** Requests of the paths this class adds, by path. */
  final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();

  FetchSaveTest() {
    server.server.createContext("/bytes/", exchange -> answer(exchange, false));
    server.server.createContext("/chunked/", exchange -> answer(exchange, true));
    server.server.createContext("/stall/", exchange -> {
      try (exchange) {
        byte[] body = body(exchange.getRequestURI().getPath());
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body, 0, body.length / 2);
        exchange.getResponseBody().flush();
        awaitEnd();
      }
    });
  }

  @AfterEach
  void stop() {
    ended.countDown();   // before the server stops: its stalled answers end
  }

  private void answer(HttpExchange exchange, boolean chunked) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      seen.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
      byte[] body = body(path);
      exchange.sendResponseHeaders(200, chunked ? 0 : body.length);
      try (OutputStream sent = exchange.getResponseBody()) {
        for (int at = 0; at < body.length; at += 8192) {
          sent.write(body, at, Math.min(8192, body.length - at));
        }
      }
    }
  }

  private void awaitEnd() {
    try {
      ended.await(); // held until the test is over: a body that never ends
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The body of {@code /kind/N}: N bytes, every value among them, seeded by the path. */
  static byte[] body(String path) {
    byte[] bytes = new byte[Integer.parseInt(path.substring(path.lastIndexOf('/') + 1))];
    new Random(path.hashCode()).nextBytes(bytes);
    return bytes;
  }

  static String[] args(List<String> options, List<String> urls) {
    return Stream.concat(options.stream(), urls.stream()).toArray(String[]::new);
  }

  /** The fields of each record in {@code lines}, which must all be records. */
  static List<Map<String, String>> records(List<String> lines) {
    List<Map<String, String>> records = new ArrayList<>();
    for (String line : lines) {
      Map<String, String> fields = Json.object(line);
      assertThat(fields).as("a record: " + line).isNotNull();
      records.add(fields);
    }
    return records;
  }

  List<Map<String, String>> records() {
    return records(out.isEmpty() ? List.of() : Arrays.asList(out.split("\n")));
  }

  static Map<String, String> recordOf(List<Map<String, String>> records, String url) {
    return records.stream().filter(record -> record.get("url").equals(url)).findFirst().orElseThrow();
  }

  static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(file -> file.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void I5_saveKeepsEachBodyByteForByteWithOrWithoutContentLength() throws IOException {
    Path dir = root.resolve("pages").resolve("new"); // made, with its parent
    String[] urls = {server.url("/bytes/" + 3 * MB), server.url("/chunked/" + (5 * MB + 17)),
        server.url("/bytes/0"), server.url("/chunked/1")};

    assertThat(run("fetch", "--quiet", "--save", dir.toString(), urls[0], urls[1], urls[2], urls[3])).as(err).isZero();

    List<Map<String, String>> records = records();
    assertThat(records).hasSize(4);
    for (String url : urls) {
      Map<String, String> record = recordOf(records, url);
      String path = url.substring(url.indexOf('/', "http://".length()));
      byte[] expected = body(path);
      assertThat(record.get("status")).isEqualTo("200");
      assertThat(record.get("bytes")).isEqualTo(String.valueOf(expected.length));
      assertThat(record.get("file")).isEqualTo(SavedName.of(url));
      assertThat(Files.readAllBytes(dir.resolve(record.get("file")))).as(url).isEqualTo(expected);
    }
    assertThat(names(dir)).as("the four bodies and no temporary file").hasSize(4);
  }

  @Test
  void I5_namesStayInTheFolderAreSafeAndTwoUrlsNeverShareOne() throws IOException {
    Path dir = root.resolve("pages");
    List<String> urls = List.of(
        server.url("/../../../outside"),
        server.url("/%2e%2e/%2e%2e/%2E%2E%2Foutside"),
        server.url("/a%5C..%5C..%5Cb"),
        server.url("/c%00d%0Ae%1Bf%7F"),
        server.url("/.hidden"),
        server.url("/CON"),
        server.url("/" + "x".repeat(2_000)),
        server.url("/same%20name"),
        server.url("/same%21name"),
        server.url("/same?name"),
        server.url("/%E2%82%AC/r%C3%A9sum%C3%A9.pdf"),
        server.url("/page?x=1&y=%2F..%2F"));

    assertThat(run(args(List.of("fetch", "--quiet", "--save", dir.toString()), urls))).as(out + err).isZero();

    List<Map<String, String>> records = records();
    assertThat(records).hasSize(urls.size());
    List<String> files = records.stream().map(record -> record.get("file")).collect(Collectors.toList());
    assertThat(files).doesNotHaveDuplicates().allSatisfy(name -> {
      assertThat(name).matches("[A-Za-z0-9_][A-Za-z0-9._=+,~-]*_[0-9a-f]{12}(\\.[A-Za-z0-9]{1,8})?").hasSizeLessThanOrEqualTo(131);
      assertThat(dir.resolve(name).getParent()).isEqualTo(dir);
      assertThat(Files.readString(dir.resolve(name))).isEqualTo("hello");
    });
    assertThat(names(dir)).containsExactlyInAnyOrderElementsOf(files);
    assertThat(names(root)).as("nothing written beside the folder").containsExactly("pages");
    String port = "127.0.0.1_" + server.server.getAddress().getPort() + "_";
    assertThat(recordOf(records, urls.get(0)).get("file")).startsWith(port + "outside_");
    assertThat(recordOf(records, urls.get(3)).get("file")).startsWith(port + "c_d_e_f_");
    assertThat(recordOf(records, urls.get(1)).get("file")).startsWith(port + "outside_");
    assertThat(recordOf(records, urls.get(4)).get("file")).startsWith(port + "hidden_");
    assertThat(recordOf(records, urls.get(7)).get("file")).startsWith(port + "same_name_");
    assertThat(recordOf(records, urls.get(8)).get("file")).startsWith(port + "same_name_");
    assertThat(recordOf(records, urls.get(10)).get("file")).startsWith(port + "r_sum_").endsWith(".pdf");
    assertThat(recordOf(records, urls.get(11)).get("file")).startsWith(port + "page_x=1_y=_");
  }

  @Test
  void I5_aNameIsSafeWhateverTheTextOfTheUrl() {
    for (String url : List.of("http://a.test/..\\..\\windows\\system32", "http://a.test/\u0000\u0001\n\r\t",
        "/etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share", "..", ".", "", "http://user:secret@a.test/x",
        "http://nul.a.test/", "con", "LPT1.txt", "http://a.test/.", "http://a.test/" + "\u00e9".repeat(3_000))) {
      String name = SavedName.of(url);
      assertThat(name).as(url).matches("[A-Za-z0-9_][A-Za-z0-9._=+,~-]*_[0-9a-f]{12}(\\.[A-Za-z0-9]{1,8})?")
          .hasSizeLessThanOrEqualTo(131).doesNotContain("secret").doesNotContain("user");
      assertThat(name.substring(0, Math.max(name.indexOf('.'), 0)).toUpperCase(java.util.Locale.ROOT))
          .as(url).isNotIn("CON", "PRN", "AUX", "NUL", "LPT1", "COM1");
    }
    assertThat(SavedName.of("https://example.org/a/b?x=1")).isEqualTo("example.org_a_b_x=1_a30159cc70e8");
    assertThat(SavedName.of("https://a.test/x?y=1")).as("FetchRecord's example").isEqualTo("a.test_x_y=1_b9250fac69e7");
    assertThat(SavedName.of("http://nul.a.test/")).startsWith("_nul.a.test_");
    assertThat(SavedName.of("http://a.test/x")).isNotEqualTo(SavedName.of("http://a.test/x#y"));
    // A password's URL: two passwords, two names, and neither the plain hash of its URL, which
    // would let anyone who sees the name check guesses at the password.
    String withPassword = "http://user:hunter2@a.test/x";
    assertThat(SavedName.of(withPassword)).startsWith("a.test_x_").doesNotContain("hunter2")
        .isNotEqualTo("a.test_x_" + SavedName.hash(withPassword))
        .isNotEqualTo(SavedName.of("http://user:hunter3@a.test/x"))
        .isEqualTo(SavedName.of(withPassword));
  }

  @Test
  void I5_theBodyOfARetriedRefusalIsNotKeptTheLastAnswersIsWhateverItsStatus() throws IOException {
    Path dir = root.resolve("pages");

    assertThat(run("fetch", "--quiet", "--save", dir.toString(), server.url("/refuse-once"), server.url("/missing")))
        .isZero();

    List<Map<String, String>> records = records();
    Map<String, String> retried = recordOf(records, server.url("/refuse-once"));
    assertThat(retried).containsEntry("status", "200").containsEntry("attempts", "2");
    assertThat(Files.readString(dir.resolve(retried.get("file")))).isEqualTo("ok");
    Map<String, String> missing = recordOf(records, server.url("/missing"));
    assertThat(missing).containsEntry("status", "404");
    assertThat(Files.readString(dir.resolve(missing.get("file")))).isEqualTo("no such thing");
    assertThat(names(dir)).containsExactlyInAnyOrder(retried.get("file"), missing.get("file"));
  }

  @Test
  void I5_aBodyCutAtMaxBodyOrTimeoutLeavesNoFileAndItsRecordSaysWhy() throws IOException {
    Path dir = root.resolve("pages");
    String declared = server.url("/bytes/" + 2 * MB);
    String counted = server.url("/chunked/" + 2 * MB);
    String stalled = server.url("/stall/" + MB);

    int status = run("fetch", "--quiet", "--save", dir.toString(), "--max-body", "1MiB", declared, counted,
        server.url("/ok"));

    assertThat(status).isEqualTo(1);
    List<Map<String, String>> records = records();
    assertThat(recordOf(records, declared)).doesNotContainKey("file").containsEntry("status", "200")
        .hasEntrySatisfying("error", error -> assertThat(error).startsWith("body too large: the server declared"));
    assertThat(recordOf(records, counted)).doesNotContainKey("file")
        .hasEntrySatisfying("error", error -> assertThat(error).startsWith("body too large: more than --max-body 1 MiB"));
    assertThat(names(dir)).as("only the whole body, no partial or temporary file")
        .containsExactly(recordOf(records, server.url("/ok")).get("file"));

    // Half a body, then nothing: cut at --timeout.
    assertThat(run("fetch", "--quiet", "--save", dir.toString(), "--timeout", "1", stalled)).isEqualTo(1);
    assertThat(records()).singleElement().satisfies(record -> assertThat(record).doesNotContainKey("file")
        .hasEntrySatisfying("error", error -> assertThat(error).startsWith("timeout: ")));
    assertThat(names(dir)).hasSize(1);
  }

  @Test
  void I5_aUrlGivenTwiceIsFetchedAndSavedOnce() throws IOException {
    Path dir = root.resolve("pages");
    String url = server.url("/bytes/1000");

    assertThat(run("fetch", "--save", dir.toString(), url, server.url("/ok"), url)).isZero();

    assertThat(records()).hasSize(2);
    assertThat(seen.get("/bytes/1000")).hasValue(1);
    assertThat(names(dir)).hasSize(2);
    assertThat(err).contains("saved once: 1 URL was given again");
  }

  @Test
  void I5_resumeFetchesOnlyTheUrlsNotDoneAndAppendsDroppingALineCutShort(@TempDir Path dir) throws IOException {
    Path output = dir.resolve("out.jsonl");
    Path state = dir.resolve("hosts.tsv");
    String done = "{\"url\":\"" + server.url("/a") + "\",\"status\":200,\"attempts\":1,\"elapsedMs\":3,\"waitedMs\":0,\"bytes\":5}\n"
        + "{\"url\":\"" + server.url("/b") + "\",\"status\":204,\"attempts\":1,\"elapsedMs\":3,\"waitedMs\":0,\"bytes\":0}\n"
        + "{\"url\":\"" + server.url("/c") + "\",\"status\":404,\"attempts\":1,\"elapsedMs\":3,\"waitedMs\":0,\"bytes\":13}\n"
        + "{\"url\":\"" + server.url("/d") + "\",\"status\":200,\"attempts\":1,\"elapsedMs\":3,\"waitedMs\":0,\"bytes\":2,"
        + "\"error\":\"timeout: the body was not complete within --timeout 2 s: 2 of 5 bytes had come\"}\n"
        + "{\"url\":\"" + server.url("/e") + "\",\"status\":500,\"attempts\":1,\"elapsedMs\":3,\"waitedMs\":0,\"bytes\":5}\n";
    Files.writeString(output, done + "{\"url\":\"" + server.url("/f") + "\",\"status\":20");

    int status = run("fetch", "--resume", "--output", output.toString(), "--state", state.toString(),
        server.url("/a"), server.url("/b"), server.url("/c"), server.url("/d"), server.url("/e"), server.url("/f"),
        server.url("/g"));

    assertThat(status).as(err).isZero();
    assertThat(server.requests).containsExactlyInAnyOrder("GET /c", "GET /d", "GET /e", "GET /f", "GET /g");
    String written = Files.readString(output);
    assertThat(written).startsWith(done).endsWith("\n");
    List<Map<String, String>> records = records(written.lines().collect(Collectors.toList()));
    assertThat(records).hasSize(10);
    assertThat(records.subList(5, 10)).extracting(record -> record.get("url")).containsExactlyInAnyOrder(
        server.url("/c"), server.url("/d"), server.url("/e"), server.url("/f"), server.url("/g"));
    assertThat(err).contains("resumed: 2 of 7 URLs were done in " + output + " and were skipped");
    assertThat(state).as("--state kept as ever").exists();

    // Resumed again: all done, nothing fetched; a whole last record without its newline gets one.
    Files.writeString(output, Files.readString(output).stripTrailing());
    server.requests.clear();
    assertThat(run("fetch", "--resume", "--output", output.toString(), server.url("/a"), server.url("/g"))).isZero();
    assertThat(server.requests).isEmpty();
    assertThat(Files.readString(output)).isEqualTo(written);
    assertThat(err).contains("resumed: 2 of 2 URLs were done");
  }

  @Test
  void I5_resumeWithSaveRefetchesAUrlWhoseFileIsMissingOrNotWhole(@TempDir Path dir) throws IOException {
    Path output = dir.resolve("out.jsonl");
    Path pages = dir.resolve("pages");
    String[] urls = {server.url("/bytes/100"), server.url("/bytes/200"), server.url("/bytes/300"), server.url("/ok")};
    assertThat(run("fetch", "--save", pages.toString(), "--output", output.toString(), urls[0], urls[1], urls[2]))
        .isZero();
    Files.delete(pages.resolve(SavedName.of(urls[1])));
    Files.write(pages.resolve(SavedName.of(urls[2])), new byte[7]);
    seen.clear();

    assertThat(run(args(List.of("fetch", "--resume", "--save", pages.toString(), "--output", output.toString()),
        List.of(urls)))).isZero();

    assertThat(seen).containsOnlyKeys("/bytes/200", "/bytes/300");
    assertThat(server.requests).containsExactly("GET /ok");
    for (String url : List.of(urls[0], urls[1], urls[2])) {
      assertThat(Files.readAllBytes(pages.resolve(SavedName.of(url))))
          .isEqualTo(body(url.substring(url.indexOf("/bytes/"))));
    }
    assertThat(Files.readAllLines(output)).hasSize(6);
    assertThat(err).contains("resumed: 1 of 4 URLs were done");
  }

  /**
   * A run killed outright (SIGKILL, no chance to clean up) as it fetched 40 URLs, ten of them
   * done, the others held by the server mid-body; resumed, it fetches only those thirty, and
   * ends with one 2xx record and one whole file per URL, and no temporary file.
   */
  @Test
  void I5_aKilledRunResumedFetchesOnlyWhatWasNotDone(@TempDir Path dir) throws Exception {
    int quick = 10;
    AtomicInteger arrivals = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    server.server.createContext("/kill/", exchange -> {
      try (exchange) {
        String path = exchange.getRequestURI().getPath();
        requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        byte[] body = body(path);
        exchange.sendResponseHeaders(200, body.length);
        OutputStream sent = exchange.getResponseBody();
        if (arrivals.incrementAndGet() > quick && release.getCount() > 0) {
          sent.write(body, 0, body.length / 2); // half a body, then held
          sent.flush();
          release.await();
          throw new IOException("the run that asked was killed");
        }
        sent.write(body);
        sent.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      urls.add(server.url("/kill/" + (100_000 + i)));
    }
    Path output = dir.resolve("out.jsonl");
    Path pages = dir.resolve("pages");
    Path state = dir.resolve("hosts.tsv");
    Path errors = dir.resolve("err.txt");
    Process fetch = CommandRun.process(args(List.of("fetch", "--quiet", "--timeout", "3600", "--save", pages.toString(),
            "--output", output.toString(), "--state", state.toString()), urls))
        .redirectError(errors.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      while (!(Files.exists(output) && Files.readString(output).lines().count() >= quick)) {
        assertThat(fetch.isAlive()).as(Files.exists(errors) ? Files.readString(errors) : "").isTrue();
        Thread.sleep(20); // polling another process's output, not timing anything
      }
      fetch.destroyForcibly(); // SIGKILL: no hook runs, the held bodies stay half written
      fetch.waitFor();
    } finally {
      fetch.destroyForcibly();
      release.countDown();
    }
    List<Map<String, String>> before = records(Files.readAllLines(output));
    assertThat(before).hasSize(quick);

    assertThat(run(args(List.of("fetch", "--resume", "--save", pages.toString(), "--output", output.toString(),
        "--state", state.toString()), urls))).as(err).isZero();

    Map<String, List<Map<String, String>>> byUrl = new HashMap<>();
    for (Map<String, String> record : records(Files.readAllLines(output))) {
      byUrl.computeIfAbsent(record.get("url"), url -> new ArrayList<>()).add(record);
    }
    assertThat(byUrl).containsOnlyKeys(urls);
    for (String url : urls) {
      assertThat(byUrl.get(url)).as(url).singleElement().satisfies(record -> assertThat(record.get("status")).startsWith("2"));
      String path = url.substring(url.indexOf("/kill/"));
      assertThat(Files.readAllBytes(pages.resolve(byUrl.get(url).get(0).get("file")))).as(url).isEqualTo(body(path));
    }
    for (Map<String, String> record : before) {
      String url = record.get("url");
      assertThat(requests.get(url.substring(url.indexOf("/kill/")))).as("done before: " + url).hasValue(1);
    }
    assertThat(names(pages)).as("one whole file a URL, no temporary file left").hasSize(urls.size())
        .noneMatch(name -> name.endsWith(SaveFolder.PART));
    assertThat(err).contains("resumed: " + quick + " of 40 URLs were done");
  }
}
