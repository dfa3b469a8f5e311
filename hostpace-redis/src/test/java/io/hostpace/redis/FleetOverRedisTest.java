package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.KnownHosts;
import io.hostpace.testing.OnceRefused;
import io.hostpace.testing.ScriptedExchange;
import io.hostpace.redis.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC S2 end to end: two engines, each with its own {@link RedisFleet} on one real Redis, as two
 * processes of a fleet would be. The hosts are exchanges that answer at once (no network: what is
 * under test is the fleet's path through Redis), and the system clock runs, so what is checked is
 * what one engine learns from the other, never how fast anything is. The spacing of starts, once
 * the fleet paces a host, is granted on Redis's clock and seen on the engines', a round trip
 * later, which a busy machine can stretch for one start and not the next (one engine's own starts
 * too: it asks for the next ahead of its own pace): those tests are tagged {@code wall-clock}
 * ({@code -Pthorough}); core's {@code FleetTest} holds the same spacing in virtual time.
 */
class FleetOverRedisTest {

  static RedisServer server;
  final List<RedisFleet> fleets = new ArrayList<>();
  final String fleetName = "e2e-" + Long.toHexString(System.nanoTime());

  @BeforeAll
  static void startRedis() throws Exception {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void closeFleets() {
    fleets.forEach(RedisFleet::close);
  }

  Hostpace.Builder process() {
    RedisFleet fleet = RedisFleet.connect(server.uri(), fleetName);
    fleets.add(fleet);
    return Hostpace.builder().fleet(fleet);
  }

  /** An answer of {@code status}, with a {@code Retry-After} when not null; records when it was sent. */
  static final class Answer extends ScriptedExchange<Integer> {
    final int status;
    final CompletableFuture<Integer> answer = new CompletableFuture<>();
    final boolean hold;
    final CompletableFuture<Long> sent = new CompletableFuture<>();
    volatile long sentAt;

    Answer(String uri, int status, @Nullable String retryAfter, boolean hold) {
      super(ScriptedExchange.statuses(uri)
          .headers((response, name) -> name.equalsIgnoreCase("Retry-After") && response != 200 ? retryAfter : null));
      this.status = status;
      this.hold = hold;
    }

    static Answer ok(String uri) {
      return new Answer(uri, 200, null, false);
    }

    @Override
    public CompletableFuture<Integer> send() {
      sentAt = System.nanoTime();
      sent.complete(sentAt);
      if (!hold) {
        answer.complete(status);
      }
      return answer;
    }
  }

  @Test
  void S2_aRetryAfterOneProcessMeetsPausesTheOtherThroughRedis() throws Exception {
    CompletableFuture<HostpaceEvent.Paused> pausedB = new CompletableFuture<>();
    Hostpace a = process().retries(0).build();
    Hostpace b = process().addListener(event -> {
      if (event instanceof HostpaceEvent.Paused paused) {
        pausedB.complete(paused);
      }
    }).build();
    Answer held = new Answer("http://shared.test/hold", 200, null, true);
    b.execute(held); // b holds the host: a lesson about it is for b
    held.sent.get(10, TimeUnit.SECONDS);

    CompletableFuture<Integer> refused = a.execute(new Answer("http://shared.test/a", 429, "30", false));
    assertThat(refused.get(10, TimeUnit.SECONDS)).isEqualTo(429); // no retries: the refusal comes back

    HostpaceEvent.Paused paused = pausedB.get(10, TimeUnit.SECONDS);
    assertThat(paused.key()).isEqualTo("shared.test");
    // The Retry-After a met, whole: a lesson tells it as a duration, which b counts from when it heard it.
    assertThat(paused.pause()).isEqualTo(Duration.ofSeconds(30));
    assertThat(b.snapshot()).anySatisfy(host -> assertThat(host.pausedFor()).isPositive());
    held.answer.complete(200);
  }

  /** A rule that paces a host at one each 200 ms once it refused, and keeps that pace. */
  static final LearningRule FIVE_A_SECOND_ONCE_REFUSED = OnceRefused.paceEvery(Duration.ofMillis(200));

  @Test
  void S3_aProcessThatJoinsAfterTheOthersLearnedAHostStartsAtTheirPaceThroughRedis() throws Exception {
    List<HostpaceEvent> heard = lateJoinerSendsThree();
    // It never refused nor was told a lesson since it joined: the pace is what the fleet kept.
    assertThat(heard).anySatisfy(event -> assertThat(event).isInstanceOfSatisfying(HostpaceEvent.IntervalChanged.class,
        changed -> assertThat(changed.to()).isEqualTo(Duration.ofMillis(200))));
    assertThat(heard).filteredOn(event -> event instanceof HostpaceEvent.Started).hasSize(3);
    assertThat(heard).noneMatch(event -> event instanceof HostpaceEvent.Refused);
  }

  @Test
  @Tag("wall-clock")
  void S3_aLateJoinersStartsThroughRedisAreTheFleetsPaceApart() throws Exception {
    List<Long> started = lateJoinerSendsThree().stream().filter(event -> event instanceof HostpaceEvent.Started)
        .map(HostpaceEvent::atNanos).sorted().toList();
    assertThat(started).hasSize(3);
    // The fleet paces the host: each start is granted on Redis's clock and seen on the engine's a
    // half round trip later, which a busy machine can stretch for one start and not the next, so a
    // little under the pace is allowed.
    for (int i = 1; i < started.size(); i++) {
      assertThat(started.get(i) - started.get(i - 1)).as("gap before start %d", i)
          .isGreaterThan(Duration.ofMillis(180).toNanos());
    }
  }

  /**
   * One process refused at {@code paced.test} (its rule then paces the host at one each 200 ms),
   * then, once Redis keeps that pace, a process that joins and sends three requests there; what
   * the late one's listener heard, once all three were answered.
   */
  private List<HostpaceEvent> lateJoinerSendsThree() throws Exception {
    Hostpace a = process().learningRule(FIVE_A_SECOND_ONCE_REFUSED).retries(0).build();
    assertThat(a.execute(new Answer("http://paced.test/a", 429, null, false)).get(10, TimeUnit.SECONDS)).isEqualTo(429);
    RedisFleet probe = RedisFleet.connect(server.uri(), fleetName); // waits until Redis has what a kept
    fleets.add(probe);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a guard against a hang
    while (RedisFleetKeptTest.recall(probe, "paced.test") == null && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }

    List<HostpaceEvent> heard = Collections.synchronizedList(new ArrayList<>());
    Hostpace late = process().learningRule(FIVE_A_SECOND_ONCE_REFUSED).addListener(heard::add).build();
    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(late.execute(Answer.ok("http://paced.test/late" + i)));
    }
    for (CompletableFuture<Integer> call : calls) {
      assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
    synchronized (heard) {
      return new ArrayList<>(heard);
    }
  }

  @Test
  void S2_twoProcessesHoldAHostsLearnedLimitOfTwoTogetherThroughRedis() throws Exception {
    HostStateStore holdingTwo = KnownHosts.holding(2); // as if each had learned the host's gate of two
    Hostpace a = process().hostStateStore(holdingTwo).build();
    Hostpace b = process().hostStateStore(holdingTwo).build();
    holdNoMoreThan(2, List.of(a, b), "gate.test");
  }

  @Test
  void S2_twoProcessesHoldAGroupsInFlightLimitOfTwoTogetherThroughRedis() throws Exception {
    Hostpace a = process().addLimit("*.gate.test", Limits.inFlight(2)).build();
    Hostpace b = process().addLimit("*.gate.test", Limits.inFlight(2)).build();
    holdNoMoreThan(2, List.of(a, b), "a.gate.test", "b.gate.test", "c.gate.test"); // alone, each would hold 2
  }

  /**
   * Starts three rounds of held answers to {@code hosts} in turn from each of {@code processes},
   * then answers them one at a time, checking whenever one more has started that never more than
   * {@code limit} are in flight for the fleet, and that every call ends 200.
   */
  static void holdNoMoreThan(int limit, List<Hostpace> processes, String... hosts) throws Exception {
    List<Answer> answers = new ArrayList<>();
    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      for (Hostpace process : processes) {
        String host = hosts[answers.size() % hosts.length];
        Answer answer = new Answer("http://" + host + "/" + answers.size(), 200, null, true);
        answers.add(answer);
        calls.add(process.execute(answer));
      }
    }
    awaitAnySent(answers);
    for (int answered = 0; answered < answers.size(); answered++) {
      List<Answer> inFlight = inFlight(answers);
      assertThat(inFlight).as("in flight at once for the fleet").hasSizeBetween(1, limit);
      inFlight.get(0).answer.complete(200); // its place is let go: another may start
      // The unsent ones are taken before the count: one sent after it is among them, and one sent
      // before it is counted (taken after the count, one sent in between was in neither: a hang).
      List<Answer> unsent = answers.stream().filter(x -> !x.sent.isDone()).toList();
      if (inFlight(answers).size() < limit && !unsent.isEmpty()) {
        awaitAnySent(unsent);
      }
    }
    for (CompletableFuture<Integer> call : calls) {
      assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
  }

  /**
   * Sends {@code rounds} answers at once to {@code host} from each of {@code processes} in turn,
   * waits until all are answered 200, and returns when each was sent, in order.
   */
  static List<Long> sendTimes(String host, int rounds, List<Hostpace> processes) throws Exception {
    List<Answer> answers = new ArrayList<>();
    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      for (Hostpace process : processes) {
        Answer answer = Answer.ok("http://" + host + "/" + answers.size());
        answers.add(answer);
        calls.add(process.execute(answer));
      }
    }
    for (CompletableFuture<Integer> call : calls) {
      assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo(200);
    }
    List<Long> starts = new ArrayList<>();
    answers.forEach(answer -> starts.add(answer.sentAt));
    Collections.sort(starts);
    return starts;
  }

  static List<Answer> inFlight(List<Answer> answers) {
    return answers.stream().filter(x -> x.sent.isDone() && !x.answer.isDone()).toList();
  }

  /** Waits, at most 10 s, until one of {@code answers} has been sent. */
  static void awaitAnySent(List<Answer> answers) throws Exception {
    CompletableFuture.anyOf(answers.stream().map(x -> x.sent).toArray(CompletableFuture<?>[]::new))
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  @Tag("wall-clock")
  void S2_twoProcessesConfiguredAtOneStartEachSecondGoAtOneASecondTogether() throws Exception {
    Limits oneASecond = Limits.rate(Rate.of(1, Duration.ofSeconds(1)));
    Hostpace a = process().addLimit("paced.test", oneASecond).build();
    Hostpace b = process().addLimit("paced.test", oneASecond).build();
    List<Long> starts = sendTimes("paced.test", 2, List.of(a, b));
    // Alone, each engine would start its first two at 0 s and 1 s: two pairs. The fleet grants
    // one start a second in all, on Redis's clock; the engines' own clocks may differ from it by
    // the claims' round trips, so a little under a second is allowed.
    for (int i = 1; i < starts.size(); i++) {
      assertThat(starts.get(i) - starts.get(i - 1)).as("gap before start %d", i)
          .isGreaterThan(Duration.ofMillis(900).toNanos());
    }
  }

  @Test
  @Tag("wall-clock")
  void S2_fourProcessesConfiguredAtTenASecondTogetherNeverGoOverItInAnySecond(org.junit.jupiter.api.TestReporter reporter)
      throws Exception {
    Limits tenASecond = Limits.rate(Rate.of(10, Duration.ofSeconds(1)));
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      processes.add(process().addLimit("ten.test", tenASecond).build());
    }
    List<Long> starts = sendTimes("ten.test", 15, processes); // 60 starts: about six seconds for the fleet
    // A window of a second holds at most 10 starts granted on Redis's clock; the engines' clock
    // is the same machine's, read a claim's half round trip after the grant: one more is allowed.
    for (int i = 0; i + 11 < starts.size(); i++) {
      assertThat(starts.get(i + 11) - starts.get(i)).as("12 starts from start %d", i)
          .isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
    }
    double perSecond = (starts.size() - 1) / ((starts.get(starts.size() - 1) - starts.get(0)) / 1e9);
    assertThat(perSecond).as("the fleet's rate over the run").isLessThanOrEqualTo(10 * 1.02);
    reporter.publishEntry("fleet starts a second, of 10 configured", String.format("%.3f", perSecond));
  }

  /** A rule that, once refused, holds the host to two starts a second, and paces it no other way. */
  static final LearningRule TWO_A_SECOND_ONCE_REFUSED = OnceRefused.quota(2, Duration.ofSeconds(1));

  @Test
  @Tag("wall-clock")
  void S2_twoProcessesHoldALearnedQuotaOfTwoASecondTogetherThroughRedis() throws Exception {
    Hostpace a = process().retries(0).learningRule(TWO_A_SECOND_ONCE_REFUSED).build();
    Hostpace b = process().retries(0).learningRule(TWO_A_SECOND_ONCE_REFUSED).build();
    for (Hostpace process : List.of(a, b)) { // each refused once: each learns the quota
      assertThat(process.execute(new Answer("http://window.test/refused", 429, null, false)).get(10, TimeUnit.SECONDS))
          .isEqualTo(429);
    }
    List<Long> starts = sendTimes("window.test", 3, List.of(a, b));
    // Alone, each engine would start two in each of its windows: four in a second. Each start
    // holds one of the fleet's two places for a second of Redis's clock; the engines' clocks may
    // differ from it by the claims' round trips, so a little under a second is allowed.
    for (int i = 2; i < starts.size(); i++) {
      assertThat(starts.get(i) - starts.get(i - 2)).as("time from start %d to start %d", i - 2, i)
          .isGreaterThan(Duration.ofMillis(900).toNanos());
    }
  }
}
