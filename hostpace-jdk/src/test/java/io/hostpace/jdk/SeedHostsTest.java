package io.hostpace.jdk;

import static io.hostpace.jdk.Waiting.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.KgfLike;
import io.hostpace.testkit.QleverLike;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hosts of the seeds, played by real servers on 127.0.0.1, through a real
 * {@link HttpClient} and an engine on the system clock. No test measures the wall clock: a pause
 * is read from the engine's decisions (the times on its events are its clock), or as an order of
 * wall-clock instants that a busy machine can only make later; the exact timing is tested in
 * virtual time in core.
 */
class SeedHostsTest {

  // The whole in-flight limit at once to a new host (SPEC P3), as these tests count on.
  final List<HostpaceEvent> events = new CopyOnWriteArrayList<>();
  final Hostpace engine = Hostpace.builder().widenFirstContact(false).addListener(events::add).build();
  final PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
  TestServer server;

  @AfterEach
  void stop() {
    Waiting.stop(server, client);
  }

  /**
   * Starts the server as {@code handler}, sends it GETs of {@code prefix} 1 to {@code n} at once,
   * and expects every one answered 200 in the end.
   */
  List<HttpResponse<String>> allAnswered(TestServer.Handler handler, String prefix, int n) throws IOException {
    server = TestServer.start(handler);
    List<CompletableFuture<HttpResponse<String>>> calls = IntStream.rangeClosed(1, n)
        .mapToObj(i -> client.sendAsync(get(server.uri(prefix + i)), BodyHandlers.ofString()))
        .collect(Collectors.toList());
    List<HttpResponse<String>> responses =
        calls.stream().map(call -> call.orTimeout(20, TimeUnit.SECONDS).join()).collect(Collectors.toList());
    assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(200);
    return responses;
  }

  @Test
  void R4_qleverRefusesBeyondOneASecondAndTheLearnedIntervalLetsEveryRequestThrough() throws Exception {
    QleverLike qlever = new QleverLike();

    // At 0 s six requests arrive at a host the engine has no limit for.
    List<HttpResponse<String>> responses = allAnswered(qlever, "/q/", 6);

    assertThat(responses).extracting(HttpResponse::body)
        .containsExactly("results of /q/1", "results of /q/2", "results of /q/3",
            "results of /q/4", "results of /q/5", "results of /q/6");
    // The burst was refused, each refusal slowed the host, and the later ones went through.
    assertThat(qlever.refusals()).as("%s", qlever.answers()).isPositive();
    assertThat(Waiting.interval(engine, server.hostKey())).isGreaterThanOrEqualTo(Duration.ofMillis(500));
  }

  @Test
  void R2_kgfAdmitsFourAtOnceAndTheRestWaitForItsRetryAfter() throws Exception {
    KgfLike kgf = new KgfLike();

    allAnswered(kgf, "/kgf/", 10);

    assertThat(kgf.maxWorking()).isLessThanOrEqualTo(KgfLike.SEED_CAPACITY);
    // After a refusal the host starts nothing for a second: each request is sent again no sooner.
    for (int i = 1; i <= 10; i++) {
      EngineState.assertEachRetryWaited(events, "/kgf/" + i, Duration.ofSeconds(1));
    }
    assertThat(server.requests()).hasSizeGreaterThan(10);
  }

  @Test
  void R1_dbpediasBusy405WithRetryAfterIsRetriedAndAPlain405IsReturnedAsItIs() throws Exception {
    server = TestServer.start(new DbpediaLike());

    HttpResponse<String> query = client.send(get(server.uri("/sparql")), BodyHandlers.ofString());
    HttpResponse<String> update = client.send(get(server.uri("/update")), BodyHandlers.ofString());

    assertThat(query.statusCode()).isEqualTo(200);
    assertThat(query.body()).isEqualTo("results");
    assertThat(server.requests("/sparql")).hasSize(2);
    EngineState.assertEachRetryWaited(events, "/sparql", Duration.ofSeconds(1));
    assertThat(update.statusCode()).isEqualTo(405);
    assertThat(update.body()).isEqualTo("Method Not Allowed");
    assertThat(server.requests("/update")).hasSize(1);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "EEE, dd MMM yyyy HH:mm:ss 'GMT'",        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
      "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",         // RFC 850:     Sunday, 06-Nov-94 08:49:37 GMT
      "EEE MMM ppd HH:mm:ss yyyy"})             // asctime:     Sun Nov  6 08:49:37 1994
  void R2_aRetryAfterDateInEachOfTheThreeFormsIsWaitedFor(String form) throws Exception {
    DateTimeFormatter format = DateTimeFormatter.ofPattern(form, Locale.US);
    List<Instant> dates = new CopyOnWriteArrayList<>();
    List<Instant> arrivals = new CopyOnWriteArrayList<>();
    server = TestServer.start((request, exchange) -> {
      arrivals.add(Instant.now());
      if (arrivals.size() == 1) {
        // Two seconds ahead, to the second: between 1 and 2 s from now.
        ZonedDateTime date = ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(2).withNano(0);
        dates.add(date.toInstant());
        TestServer.reply(exchange, 503, "busy", "Retry-After", format.format(date));
      } else {
        TestServer.reply(exchange, 200, "answer");
      }
    });

    HttpResponse<String> response = client.send(get(server.uri("/")), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(arrivals).hasSize(2);
    // The retry arrives once the date has passed: an order of two instants on the wall clock,
    // which a busy machine can only make later.
    assertThat(arrivals.get(1)).as("the retry's arrival against the date %s", dates).isAfterOrEqualTo(dates.get(0));
  }
}
