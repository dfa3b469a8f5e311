package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pacing simulator on the scenarios shipped in {@code scenarios/pacing/}: the seed's
 * figures on the QLever-like server pinned to the last digit (so the model cannot drift
 * silently), and the targets of the default rule where it reaches them. BENCHMARKS.md lists where
 * it does not. Of the scenarios added beside the original ones only what the seed's rule, the
 * configured engine and plain client code do is pinned, not the default rule's figures.
 */
class PacingSimulationTest {

  static final Path DIR = Path.of("scenarios/pacing");

  static PacingResult replay(String file) throws IOException {
    return Simulator.PACING.simulate(DIR.resolve(file));
  }

  /** The target: at least 0.9 of the server's rate, at most 3 % refused after the first ten seconds. */
  static void assertReachesTheTarget(PacingResult.Policy policy, String what) {
    assertThat(policy.goodputRatio()).as(what).isGreaterThanOrEqualTo(0.9);
    assertThat(policy.lateRefusalPct()).as(what).isLessThanOrEqualTo(3.0);
  }

  @Test
  void R4_theSeedsRuleOnTheQleverLikeServerGetsTwoThirdsOfItsRateWithOneRequestInFiveRefused() throws IOException {
    PacingResult.Policy seed = replay("qlever-like.json").policy("seed");

    // The original discrete-event model said 79 refusals, 20.8 %, 476.5 s, 0.63: the real engine agrees.
    assertThat(seed.completed()).isEqualTo(300);
    assertThat(seed.lost()).isZero();
    assertThat(seed.refusals()).isEqualTo(79);
    assertThat(seed.refusalPct()).isEqualTo(20.8);
    assertThat(seed.finishSeconds()).isEqualTo(476.3);
    assertThat(seed.goodputRatio()).isEqualTo(0.63);
    assertThat(seed.p50WaitMs()).isEqualTo(237_858);
    assertThat(seed.p99WaitMs()).isEqualTo(470_897);
    assertThat(seed.lateRefusals()).isEqualTo(45);
  }

  /**
   * Every shipped scenario where the default rule misses a target (goodput at least 0.95, at most
   * 3 % refused in all and 2 % after 10 s, nothing lost), with what it reaches there, as
   * BENCHMARKS.md gives it and says why: a change of the rule that moves any of them shows here.
   */
  @ParameterizedTest(name = "{0}: goodput {1}, {2} refusals ({3} % in all, {4} % after 10 s), {5} lost")
  @CsvSource({
      "rate-halves, 0.93, 15, 3.0, 2.3, 0",
      "refusals-count, 0.93, 8, 2.6, 1.3, 0",
      "refusals-count-burst-3, 0.85, 16, 5.1, 2.6, 0",
      "three-processes, 0.73, 35, 5.5, 3.5, 0",
      "rate-0.5, 0.95, 8, 5.1, 2.0, 0",
      "qlever-like-fleet, 0.96, 12, 3.8, 1.4, 0",
      "rate-halves-fleet, 0.95, 17, 3.4, 2.3, 0",
      "fixed-window-fleet, 1.00, 20, 3.2, 1.1, 0",
      "bucket-burst-5, 1.00, 23, 3.7, 2.2, 0",
      "bucket-burst-10, 0.99, 22, 6.8, 1.1, 0",
      "window-30-per-minute, 1.00, 15, 4.8, 1.8, 0",
      "fixed-window-90, 1.00, 25, 5.3, 3.1, 0",
      "fixed-window-offset, 1.00, 25, 4.0, 4.0, 0",
      "fixed-window-own-phase, 1.00, 29, 4.6, 3.1, 0",
      "fixed-window-guessed, 0.86, 16, 2.6, 2.6, 0",
      "fixed-window-second, 0.90, 10, 1.6, 0.2, 0",
      "rate-steps, 0.90, 16, 1.3, 1.1, 0",
      "limiter-retry-after, 0.93, 8, 9.1, 3.1, 0",
      "limiter-retry-after-burst-1, 0.83, 2, 2.4, 0.0, 0",
      "two-processes, 0.78, 29, 7.5, 4.6, 0",
      "four-processes, 0.60, 178, 12.9, 11.5, 0",
      "eight-processes, 0.42, 464, 24.4, 23.1, 0",
      "two-processes-burst-3, 0.99, 90, 20.0, 17.9, 0",
      "four-processes-burst-3, 0.95, 139, 10.4, 8.9, 0",
      "eight-processes-burst-3, 0.92, 274, 16.0, 14.2, 0",
      "four-processes-late, 0.74, 43, 12.5, 11.7, 0",
      "first-contact-20, 0.83, 4, 16.7, 0.0, 0",
      "qlever-like-jitter, 0.93, 7, 2.3, 1.0, 0"
  })
  void whereTheDefaultRuleMissesATargetWhatItReachesIsPinned(
      String scenario, double goodput, int refusals, double refusedPct, double latePct, int lost) throws IOException {
    PacingResult.Policy ours = replay(scenario + ".json").policy("hostpace");

    assertThat(ours.goodputRatio()).as(scenario).isEqualTo(goodput);
    assertThat(ours.refusals()).as(scenario).isEqualTo(refusals);
    assertThat(ours.refusalPct()).as(scenario).isEqualTo(refusedPct);
    assertThat(ours.lateRefusalPct()).as(scenario).isEqualTo(latePct);
    assertThat(ours.lost()).as(scenario).isEqualTo(lost);
    boolean reached = goodput >= 0.95 && refusedPct <= 3.0 && latePct <= 2.0 && lost == 0;
    assertThat(reached).as("%s reaches every target: it belongs with the reached ones", scenario).isFalse();
  }

  /**
   * Every shipped scenario of a host that counts a quota in fixed windows, with what the default
   * rule is refused there once the host's first window is spent, as BENCHMARKS.md gives it (the
   * target: at most 1 %); a change of the rule that moves any of them shows here.
   */
  @ParameterizedTest(name = "{0}: {1} % refused after the first window")
  @CsvSource({
      "fixed-window, 0.4",
      "fixed-window-announced, 0.0",
      "fixed-window-fleet, 0.7",
      "fixed-window-second, 0.5",
      "window-30-per-minute, 1.1",
      "fixed-window-90, 2.4",
      "fixed-window-offset, 1.6",
      "fixed-window-own-phase, 2.9"
  })
  void whatTheDefaultRuleIsRefusedAfterAWindowsFirstWindowIsPinned(String scenario, double pct) throws IOException {
    PacingResult.Policy ours = replay(scenario + ".json").policy("hostpace");

    assertThat(ours.firstWindowRefusalPct()).as(scenario).isEqualTo(pct);
  }

  @Test
  void onTheQleverLikeServerOursGetsNineteenTwentiethsOfItsRateAndAfterTenSecondsRefusesFourRequests() throws IOException {
    PacingResult result = replay("qlever-like.json");
    PacingResult.Policy ours = result.policy("hostpace");

    assertThat(result.idealSeconds()).isEqualTo(299.1);
    assertThat(ours.completed()).isEqualTo(300);
    assertReachesTheTarget(ours, "qlever-like");
    // and every target of the table's: 0.95 of the rate, at most 3 % refused in all and 2 % after 10 s
    assertThat(ours.goodputRatio()).isGreaterThanOrEqualTo(0.95);
    assertThat(ours.refusalPct()).isLessThanOrEqualTo(3.0);
    assertThat(ours.lateRefusalPct()).isLessThanOrEqualTo(2.0);
    // pinned, so that a change of the rule shows here and in BENCHMARKS.md
    assertThat(ours.refusals()).isEqualTo(7);
    assertThat(ours.lateRefusals()).isEqualTo(3);
    assertThat(ours.finishSeconds()).isEqualTo(310.8);
    // opened gently (SPEC P12): none of the first requests refused at 0 s, three in the first second
    assertThat(ours.refusalsBetween(0, 0.01)).isZero();
    assertThat(ours.refusalsBetween(0, 1)).isEqualTo(3);
  }

  @Test
  void P12_aGentleFirstContactCutsTheOpeningBurstsRefusalsOnTheQleverLikeServerAndTheBucketInDebt() throws IOException {
    // The opening burst of 32 (the burst policy, SPEC P3 alone) is 31 of its 37 refusals on
    // qlever-like; opened with one request and widened per answer, the run is refused 7 times, at
    // 0.96 of the server's rate. Where refusals put the bucket in debt it also loses less: 0.93,
    // where the burst got 0.77, and is refused 8 times, not 37.
    for (String file : new String[] {"qlever-like.json", "refusals-count.json"}) {
      String json = Files.readString(DIR.resolve(file))
          .replaceFirst("\"policies\": \\[[^]]*]", "\"policies\": [ \"hostpace\", \"burst\" ]");
      PacingResult result = Simulator.PACING.simulate(json);
      assertThat(result.policy("burst").refusals()).as(file).isGreaterThanOrEqualTo(37);
      assertThat(result.policy("burst").refusalsBetween(0, 0.01)).as(file).isEqualTo(31);
      PacingResult.Policy gentle = result.policy("hostpace");
      assertThat(gentle.refusals()).as(file).isEqualTo(file.startsWith("qlever") ? 7 : 8);
      assertThat(gentle.goodputRatio()).as(file).isEqualTo(file.startsWith("qlever") ? 0.96 : 0.93);
      assertThat(gentle.lost()).as(file).isZero();
    }
  }

  @Test
  void configuredWithTheServersRateNothingIsRefusedAndUnpacedLosesMostRequests() throws IOException {
    PacingResult result = replay("qlever-like.json");

    assertThat(result.policy("configured").refusals()).isZero();
    // a fiftieth of the interval late each start, so that the server sees the rate (SPEC P1)
    assertThat(result.policy("configured").goodputRatio()).isEqualTo(0.98);
    assertThat(result.policy("unpaced").lost()).isGreaterThan(200);
  }

  @Test
  void R12_aBucketOfFiveASecondThatCountsRefusalsAgainstTheClientReachesEveryTarget() throws IOException {
    // Its opening's refusals put it in debt, so that first contact's bracket reads a lower end the
    // debt explains; tried again alone and accepted, the bucket is read as one that counts them.
    PacingResult.Policy ours = replay("refusals-count-5.json").policy("hostpace");

    assertThat(ours.lost()).isZero();
    assertThat(ours.goodputRatio()).isGreaterThanOrEqualTo(0.95);
    assertThat(ours.refusalPct()).isLessThanOrEqualTo(3.0);
    assertThat(ours.lateRefusalPct()).isLessThanOrEqualTo(2.0);
  }

  @Test
  void R11_aBucketOfThreeThatCountsRefusalsIsNotHeldToTheWindowItsDebtsWallLookedLike() throws IOException {
    // The debt's wall after the first three reads as a window of three; the quota's try of one more,
    // alone part way into a window, is accepted by the refilled bucket, and the rule paces it by its
    // rate, measured over its cycles (SPEC R15), where it was held to that window to the end.
    PacingResult result = replay("refusals-count-burst-3.json");
    PacingResult.Policy ours = result.policy("hostpace");

    assertThat(ours.lost()).isZero();
    assertThat(ours.goodputRatio()).isGreaterThanOrEqualTo(0.8);
    assertThat(ours.refusals()).isLessThan(result.policy("seed").refusals() / 2);
  }

  @Test
  void fromHalfARequestASecondToFiftyOursGetsNineTenthsWithAtMostThreePercentRefusedAfterTenSeconds() throws IOException {
    for (String file : List.of("rate-0.5.json", "rate-2.json", "rate-5.json", "rate-20.json", "rate-50.json")) {
      PacingResult.Policy ours = replay(file).policy("hostpace");
      assertThat(ours.lost()).as(file).isZero();
      assertReachesTheTarget(ours, file);
    }
  }

  @Test
  void onTheKgfLikeGateOursLearnsFourAtOnceFromItsRetryAfterAndLosesNothing() throws IOException {
    PacingResult result = replay("kgf-like.json");
    PacingResult.Policy ours = result.policy("hostpace");
    PacingResult.Policy seed = result.policy("seed");

    assertThat(ours.lost()).isZero();
    assertReachesTheTarget(ours, "kgf-like");
    // Its first refusal came when the opening, one wider a round trip from four (SPEC P12), was five
    // wide: one refused at first contact.
    assertThat(ours.refusalsBetween(0, 10)).isEqualTo(1);
    // After the first 10 s only its probes for a fifth at once are refused, twice.
    assertThat(ours.refusalsBetween(10, ours.finishSeconds())).isEqualTo(2);
    // The seed's rule keeps SPEC R2 to the letter: it pauses, then sends 32 at once again.
    assertThat(seed.lost()).isEqualTo(56);
  }

  @Test
  void onTheFixedWindowOursFindsTheWindowAndItsBoundaries() throws IOException {
    PacingResult.Policy ours = replay("fixed-window.json").policy("hostpace");

    assertReachesTheTarget(ours, "fixed-window");
    // and every target of the table's: at most 3 % refused in all (18 of 618 attempts: the eleven
    // in flight at the first window's wall, a retry, four probes for its end from 3 s after it
    // began, and one more than 60 tried in two windows) and 2 % after 10 s
    assertThat(ours.refusals()).isEqualTo(18);
    assertThat(ours.refusalPct()).isLessThanOrEqualTo(3.0);
    assertThat(ours.lateRefusalPct()).isLessThanOrEqualTo(2.0);
    // None lost (SPEC R10): the oldest request, refused in the opening burst and then at each probe
    // for the first window's end (it goes first, SPEC T1), spends no retry on those refusals, the
    // host having accepted the window's others since it came.
    assertThat(ours.lost()).isZero();
    // From the third window on, at most three refused probes a window.
    assertThat(ours.refusalsBetween(120, ours.finishSeconds())).isLessThanOrEqualTo(3 * 8);
    assertThat(ours.finishSeconds()).isLessThan(545);
  }

  @Test
  void R11_afterTheFirstWindowOfAMinuteAtMostOnePercentOfTheAttemptsAreRefused() throws IOException {
    // The first window's end is found by probes; a minute is then taken for the window's length, and
    // only the tries of one more than the quota are refused (in the first and fifth windows), and,
    // where the first wall left the window known to last less than three quarters of a minute (30
    // a minute: its last refusal 31 s after the run's first start), the one check that a minute is
    // not longer than the host's windows, 45 s into the window after the first. From the next
    // window on, at most one percent.
    for (String name : List.of("fixed-window", "window-30-per-minute")) {
      PacingResult.Policy ours = replay(name + ".json").policy("hostpace");
      double end = ours.finishSeconds() + 1;
      assertThat(ours.refusalsBetween(60, end)).as(name).isEqualTo(name.equals("fixed-window") ? 2 : 3);
      assertThat(100.0 * ours.refusalsBetween(120, end) / ours.startsBetween(120, end)).as(name).isLessThanOrEqualTo(1.0);
      assertThat(ours.lost()).as(name).isZero();
      assertThat(ours.goodputRatio()).as(name).isEqualTo(1.0);
    }
  }

  @Test
  void threeProcessesThatShareWhatTheyLearnGetNineTenthsAndThoseThatLearnAloneDoNot() throws IOException {
    PacingResult.Policy alone = replay("three-processes.json").policy("hostpace");
    PacingResult.Policy shared = replay("three-processes-shared.json").policy("hostpace");

    assertThat(shared.lost()).isZero();
    assertReachesTheTarget(shared, "three-processes-shared");
    // Learning alone, one process takes the server's whole rate and the others starve (BENCHMARKS.md).
    assertThat(alone.goodputRatio()).isLessThan(0.9);
    assertThat(alone.lateRefusalPct()).isGreaterThan(3.0);
  }

  @Test
  void S2_theProcessesOfAFleetReachTheTargetOnTokenBucketsAndAGateAsOneWould() throws IOException {
    for (String name : new String[] {"three-processes-fleet", "qlever-like-fleet", "kgf-like-fleet", "four-processes-fleet",
        "four-processes-late-fleet"}) {
      PacingResult.Policy fleet = replay(name + ".json").policy("hostpace");
      assertThat(fleet.lost()).as(name).isZero();
      assertReachesTheTarget(fleet, name);
    }
    // Not reached, and pinned (BENCHMARKS.md says why): after the halving the fleet climbs back
    // as one process does, from under the new rate (0.95).
    PacingResult.Policy halves = replay("rate-halves-fleet.json").policy("hostpace");
    assertThat(halves.lost()).isZero();
    assertThat(halves.goodputRatio()).isEqualTo(0.95);
    assertThat(halves.lateRefusalPct()).isLessThanOrEqualTo(3.0);
    // told the server's rate, the processes of a fleet together keep to it: nothing refused
    assertThat(replay("three-processes-fleet.json").policy("configured").refusals()).isZero();
    assertThat(replay("qlever-like-fleet.json").policy("configured").refusals()).isZero();
  }

  @Test
  void S2_threeProcessesOfAFleetFollowAFixedWindowAsOneProcessDoes() throws IOException {
    // Each start holds one of the fleet's places of the learned quota for a window, and each
    // process counts the others' accepted starts in its window too, so the three together start no
    // more than the window's 60.
    PacingResult.Policy fleet = replay("fixed-window-fleet.json").policy("hostpace");
    PacingResult.Policy one = replay("fixed-window.json").policy("hostpace");

    assertThat(fleet.goodputRatio()).isEqualTo(1.0);
    // Within the target of 2 % refused after 10 s, and pinned (BENCHMARKS.md has it): the tries of
    // one more, and the check that a minute is not longer than the host's windows.
    assertThat(fleet.lateRefusalPct()).isEqualTo(1.1);
    assertThat(fleet.lost()).isEqualTo(one.lost()); // the one refused at each probe of the first wall
    assertThat(fleet.finishSeconds()).isLessThan(545);
    // From the third window on, as one process: its tries of one more in the same windows, each
    // refused once.
    assertThat(fleet.refusalsBetween(120, fleet.finishSeconds())).isEqualTo(one.refusalsBetween(120, one.finishSeconds()));
  }

  @Test
  void S1_aSecondRunThatStartsFromWhatTheFirstTaughtReachesTheTargetRefusedLessThanTheFirst() throws IOException {
    for (String name : new String[] {"refusals-count", "qlever-like"}) {
      PacingResult.Policy first = replay(name + ".json").policy("hostpace");
      PacingResult.Policy second = replay(name + "-second-run.json").policy("hostpace");
      assertThat(second.lost()).as(name).isZero();
      assertReachesTheTarget(second, name);
      assertThat(second.refusalsBetween(0, 1)).as(name).isZero();                 // nothing of the opening refused
      assertThat(first.refusalsBetween(0, 1)).as(name).isEqualTo(3);              // the first run's gentle opening
      assertThat(second.refusals()).as(name).isLessThan(first.refusals());
    }
  }

  @Test
  void S3_eachProcessThatJoinsAFleetLateOpensWithNoRefusalWhereLearningAloneEachOpensAsOnFirstContact() throws IOException {
    // Four processes 30 s apart on a host of one a second: a late member of the fleet reads what the
    // fleet keeps of the host before its first start (SPEC S3) and opens at its pace.
    PacingResult.Policy fleet = replay("four-processes-late-fleet.json").policy("hostpace");
    PacingResult.Policy alone = replay("four-processes-late.json").policy("hostpace");

    assertThat(fleet.processes()).extracting(PacingResult.Process::joinSeconds).containsExactly(0.0, 30.0, 60.0, 90.0);
    assertThat(fleet.lost()).isZero();
    // the target, at most one refusal each as a later process joins: none in their first 10 s (the
    // first process's four are first contact's, its bracket's try of the lower end among them)
    assertThat(fleet.processes()).extracting(PacingResult.Process::openingRefusals).containsExactly(4, 0, 0, 0);
    // Pinned over the whole run (BENCHMARKS.md traces them): the later ones' refusals are the fleet's
    // probes of the shared host, a minute and more apart, each refused in whichever process's turn it
    // was; no newcomer probes beyond the pace it read on its own.
    assertThat(fleet.processes()).extracting(PacingResult.Process::refusals).containsExactly(6, 1, 0, 0);
    // learning alone, each process opens as on first contact, against the others' pace
    assertThat(alone.processes()).extracting(PacingResult.Process::openingRefusals).containsExactly(4, 5, 5, 4);
  }

  /**
   * Four processes of a fleet against a host of a known rate: what the server accepted a second,
   * from its first acceptance to its last, told the rate and learning it. The target is within
   * 2 % of the host's rate; the learned one reaches it with the four at once, and misses it over
   * the late run, whose first 30 s are one process's first contact (BENCHMARKS.md).
   */
  @ParameterizedTest(name = "{0}, {1}: {2} a second accepted, the host's {3}")
  @CsvSource({
      // a 5-minute run, the processes 30 s apart: told the rate, each start goes a fiftieth of the
      // interval late (SPEC P1: 1 / 1.02 = 0.9804 at best); a lone member asks its claims ahead (SPEC S2)
      "four-processes-late-fleet, configured, 0.98, 1.0, true",
      "four-processes-late-fleet, hostpace, 0.965, 1.0, false",
      // the four all at once, 400 s at 3 a second
      "four-processes-fleet, configured, 2.941, 3.0, true",
      "four-processes-fleet, hostpace, 2.944, 3.0, true"
  })
  void S2_whatRateAFleetOfFourHoldsAtTheServerIsPinned(
      String scenario, String policy, double perSecond, double hostRate, boolean within2Percent) throws IOException {
    PacingResult.Policy replayed = replay(scenario + ".json").policy(policy);

    assertThat(replayed.acceptedPerSecond()).as(scenario).isEqualTo(perSecond);
    assertThat(replayed.lost()).as(scenario).isZero();
    assertThat(perSecond >= 0.98 * hostRate && perSecond <= 1.02 * hostRate).as(scenario).isEqualTo(within2Percent);
  }

  @Test
  void aProcessThatJoinsLateSendsNothingBeforeAndItsRequestsArriveThatMuchLater() {
    // a host that refuses nothing, two requests a process, the second process 50 s after the first
    String json = """
        { "servers": [ { "host": "fast.test", "model": "gate", "maxConcurrent": 1000, "latencyMs": 50 } ],
          "clients": [ { "host": "fast.test", "requests": 4, "processes": 2, "joinAtSeconds": [0, 50] } ],
          "policies": [ "hostpace", "unpaced" ] }
        """;
    PacingResult result = Simulator.PACING.simulate(json);

    assertThat(result.idealSeconds()).isEqualTo(50.1); // the late requests' arrival counts for the ideal too
    for (PacingResult.Policy policy : result.policies()) {
      assertThat(policy.startsBetween(0, 1)).as(policy.name()).isEqualTo(2);
      assertThat(policy.startsBetween(1, 50)).as(policy.name()).isZero();
      assertThat(policy.startsBetween(50, 51)).as(policy.name()).isEqualTo(2);
      assertThat(policy.processes()).as(policy.name()).extracting(
              PacingResult.Process::joinSeconds, PacingResult.Process::requests, PacingResult.Process::completed)
          .containsExactly(tuple(0.0, 2, 2), tuple(50.0, 2, 2));
    }
  }

  @Test
  void aProcessesOpeningRefusalsAreItsOwnWithinTenSecondsOfItsJoining() {
    // A bucket of one token in 10 s, and two unpaced processes of three requests each, one at a time
    // (a refused attempt goes again 1 s after its answer, 50 ms, up to 5 retries), at 0 and 12 s.
    String json = """
        { "servers": [ { "host": "q.test", "model": "token-bucket", "rate": 0.1, "latencyMs": 50 } ],
          "clients": [ { "host": "q.test", "requests": 6, "inFlight": 1, "processes": 2, "joinAtSeconds": [0, 12] } ],
          "policies": [ "unpaced" ] }
        """;
    PacingResult.Policy unpaced = Simulator.PACING.simulate(json).policy("unpaced");

    // Process 0: accepted at 0 s; its second refused at 0.05, 1.1, ... 5.3 s and lost; its third
    // refused at 5.35, ... 9.55 s, accepted at 10.6 s with the next token: 11 refusals, all before
    // 10 s. Process 1, from 12 s: its first refused at 12, ... 17.25 s and lost; its second at 17.3,
    // ... 20.45 s, accepted at 21.5 s; its third refused at 21.55 s (in its first 10 s), then at
    // 22.6, ... 26.8 s (after them) and lost.
    assertThat(unpaced.processes()).extracting(PacingResult.Process::refusals, PacingResult.Process::openingRefusals,
            PacingResult.Process::completed, PacingResult.Process::lost)
        .containsExactly(tuple(11, 11, 2, 1), tuple(16, 11, 1, 2));
  }

  @Test
  void R8_aFixedWindowThatAnnouncesItsQuotaIsFollowedWithNothingRefused() throws IOException {
    PacingResult.Policy ours = replay("fixed-window-announced.json").policy("hostpace");
    PacingResult.Policy silent = replay("fixed-window.json").policy("hostpace");
    assertThat(ours.lost()).isZero();
    assertThat(ours.goodputRatio()).isGreaterThanOrEqualTo(0.99);
    assertThat(ours.refusals()).isZero();   // each window: as many as remain, then the wait for its end
    // probing for the first window's end, then one more than 60 tried in two windows (SPEC R11)
    assertThat(silent.refusalsBetween(1, silent.finishSeconds())).isEqualTo(6);
  }

  @Test
  void whenTheServersRateHalvesAt120sOursFollowsWithin30s() throws IOException {
    PacingResult.Policy ours = replay("rate-halves.json").policy("hostpace");

    // From 150 s on: at most one refusal a minute, and at least 90 % of the new rate of 1 a second.
    double end = ours.finishSeconds();
    assertThat(ours.refusalsBetween(150, end)).isLessThanOrEqualTo((int) Math.ceil((end - 150) / 60));
    assertThat(ours.startsBetween(150, 250)).isGreaterThanOrEqualTo(90);
    assertThat(ours.lost()).isZero();
  }

  @Test
  void theOutputKeepsTheOriginalEightFieldsPerPolicyFirstThenTheTablesOthers() throws IOException {
    String json = Simulator.PACING.run(DIR.resolve("qlever-like.json"));

    // the fields the JSON always had, in their order; then what the table also shows
    assertThat(json).startsWith("{\"policies\":[{\"name\":\"seed\",\"completed\":300,\"lost\":0,\"refusals\":79,"
        + "\"refusalPct\":20.8,\"finishSeconds\":476.3,\"goodputRatio\":0.63,\"p50WaitMs\":237858,\"p99WaitMs\":470897,"
        + "\"lateRefusals\":45,\"lateRefusalPct\":13.3}");
    assertThat(json).contains("{\"name\":\"hostpace\",", "{\"name\":\"configured\",", "{\"name\":\"unpaced\",");
    assertThat(json).endsWith("],\"idealSeconds\":299.1}").doesNotContain("\n");
  }

  @Test
  void theJsonCarriesEachFigureOfTheValueUnderItsOwnName() throws Exception {
    // every figure different, so that a field written from another figure, or left out, shows
    PacingResult result = new PacingResult(14.5, List.of(
        new PacingResult.Policy("seed", 1, 2, 3, 4.5, 6.7, 0.89, 10, 11, 12, 13.4, 0.5, List.of(), new double[] {0.5}, new double[] {0.25}),
        new PacingResult.Policy("unpaced", 21, 22, 23, 24.5, 26.7, 0.29, 30, 31, 32, 33.4, 0.5, List.of(), new double[0], new double[0])));

    JsonNode root = new ObjectMapper().readTree(result.toJson());

    assertThat(fieldNames(root)).containsExactly("policies", "idealSeconds");
    assertThat(root.get("idealSeconds").isDouble()).isTrue();
    assertThat(root.get("idealSeconds").doubleValue()).isEqualTo(14.5);
    assertThat(root.get("policies")).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertJsonIs(root.get("policies").get(i), result.policies().get(i));
    }
  }

  @Test
  void theJsonOfAReplayCarriesItsFiguresAndEveryColumnOfThePacingTable() throws Exception {
    // kgf-like: the seed's and the unpaced client's rows lose requests, so no column is all zeros
    Path file = DIR.resolve("kgf-like.json");
    PacingResult result = replay("kgf-like.json");
    JsonNode root = new ObjectMapper().readTree(Simulator.PACING.run(file));

    assertThat(root.get("idealSeconds").doubleValue()).isEqualTo(result.idealSeconds());
    assertThat(root.get("policies")).hasSize(result.policies().size());
    for (int i = 0; i < result.policies().size(); i++) {
      assertJsonIs(root.get("policies").get(i), result.policies().get(i));
    }
    assertThat(result.policy("seed").lost()).isPositive();

    // each cell of the table, read back, is the JSON's field of that column
    List<String> rows = PacingTable.markdown(List.of(file)).lines().skip(2).toList();
    assertThat(rows).hasSize(root.get("policies").size());
    for (int i = 0; i < rows.size(); i++) {
      String[] cells = rows.get(i).substring(2, rows.get(i).length() - 2).split(" \\| ", -1);
      JsonNode p = root.get("policies").get(i);
      assertThat(cells).hasSize(13);
      if (i == 0) {
        assertThat(cells[0]).isEqualTo("kgf-like");
        assertThat(Double.parseDouble(cells[1])).isEqualTo(root.get("idealSeconds").doubleValue());
      }
      assertThat(cells[2].replace("**", "")).isEqualTo(p.get("name").textValue());
      assertThat(Integer.parseInt(cells[3])).isEqualTo(p.get("completed").intValue());
      assertThat(Integer.parseInt(cells[4])).isEqualTo(p.get("lost").intValue());
      assertThat(Integer.parseInt(cells[5])).isEqualTo(p.get("refusals").intValue());
      assertThat(Double.parseDouble(cells[6])).isEqualTo(p.get("refusalPct").doubleValue());
      assertThat(Double.parseDouble(cells[7])).isEqualTo(p.get("lateRefusalPct").doubleValue());
      // a gate: no fixed window, so no refusals after the first one, blank, and no field
      assertThat(cells[8]).isEmpty();
      assertThat(p.has("firstWindowRefusalPct")).isFalse();
      assertThat(Double.parseDouble(cells[9])).isEqualTo(p.get("finishSeconds").doubleValue());
      assertThat(Double.parseDouble(cells[10])).isEqualTo(p.get("goodputRatio").doubleValue());
      assertThat(Long.parseLong(cells[11])).isEqualTo(p.get("p50WaitMs").longValue());
      assertThat(Long.parseLong(cells[12])).isEqualTo(p.get("p99WaitMs").longValue());
    }
  }

  @Test
  void theJsonOfSeveralProcessesCarriesTheAcceptedRateTheirSharesAndEachProcessUnderItsOwnNames() throws Exception {
    // every figure different, so that a field written from another figure, or left out, shows
    List<PacingResult.Process> two =
        List.of(new PacingResult.Process(0, 0, 0.0, 20, 19, 1, 7, 5), new PacingResult.Process(1, 2, 30.5, 21, 17, 4, 9, 8));
    PacingResult result = new PacingResult(14.5, List.of(
        new PacingResult.Policy("hostpace", 1, 2, 3, 4.5, 6.7, 0.89, 10, 11, 12, 13.4, 0.987, 0.52, 0.93, two,
            new double[0], new double[0]),
        // where the shares are not defined, the fields are there, null
        new PacingResult.Policy("unpaced", 1, 2, 3, 4.5, 6.7, 0.89, 10, 11, 12, 13.4, 0.987, null, null, two,
            new double[0], new double[0])));

    JsonNode root = new ObjectMapper().readTree(result.toJson());
    JsonNode policy = root.get("policies").get(0);

    assertJsonIs(policy, result.policies().get(0));
    assertThat(policy.get("processes").get(1).get("joinSeconds").isDouble()).isTrue();
    assertThat(policy.get("processes").get(1).get("refusals").isInt()).isTrue();
    assertThat(policy.get("sharesJain").isDouble()).isTrue();
    assertThat(policy.get("togetherOfRate").isDouble()).isTrue();
    assertJsonIs(root.get("policies").get(1), result.policies().get(1));
    assertThat(root.get("policies").get(1).get("sharesJain").isNull()).isTrue();
    assertThat(root.get("policies").get(1).get("togetherOfRate").isNull()).isTrue();
  }

  @Test
  void theJsonOfAReplayOfLateJoinersCarriesEachProcessAndTheTableShowsThemByProcess() throws Exception {
    Path file = DIR.resolve("four-processes-late-fleet.json");
    PacingResult result = replay("four-processes-late-fleet.json");
    JsonNode root = new ObjectMapper().readTree(Simulator.PACING.run(file));

    for (int i = 0; i < result.policies().size(); i++) {
      assertJsonIs(root.get("policies").get(i), result.policies().get(i));
    }
    // no figure the same in every process, so that one written from another process shows
    assertThat(result.policy("seed").processes()).extracting(PacingResult.Process::refusals).doesNotHaveDuplicates();

    // the second table: a row per policy, each process's figures in process order, as the JSON has them
    List<String> lines = PacingTable.markdown(List.of(file)).lines().toList();
    int header = lines.indexOf("| scenario | policy | accepted a second | processes join at s | refusals, by process"
        + " | of them in its first 10 s | shares while all ran (Jain) | together, of the host's rate, while all ran |");
    assertThat(header).as("the table of processes").isPositive();
    List<String> rows = lines.subList(header + 2, lines.size());
    assertThat(rows).hasSize(result.policies().size());
    for (int i = 0; i < rows.size(); i++) {
      String[] cells = rows.get(i).substring(2, rows.get(i).length() - 2).split(" \\| ", -1);
      JsonNode p = root.get("policies").get(i);
      assertThat(cells).hasSize(8);
      assertThat(cells[0]).isEqualTo(i == 0 ? "four-processes-late-fleet" : "");
      assertThat(cells[1].replace("**", "")).isEqualTo(p.get("name").textValue());
      assertThat(Double.parseDouble(cells[2])).isEqualTo(p.get("acceptedPerSecond").doubleValue());
      List<JsonNode> processes = new ArrayList<>();
      p.get("processes").forEach(processes::add);
      assertThat(cells[3].split(", ")).extracting(Double::parseDouble)
          .containsExactlyElementsOf(processes.stream().map(q -> q.get("joinSeconds").doubleValue()).toList());
      assertThat(cells[4].split(", ")).extracting(Integer::parseInt)
          .containsExactlyElementsOf(processes.stream().map(q -> q.get("refusals").intValue()).toList());
      assertThat(cells[5].split(", ")).extracting(Integer::parseInt)
          .containsExactlyElementsOf(processes.stream().map(q -> q.get("openingRefusals").intValue()).toList());
      // the shares, blank where the JSON has null
      assertThat(cells[6]).isEqualTo(p.get("sharesJain").isNull() ? "" : String.format(Locale.ROOT, "%.2f",
          p.get("sharesJain").doubleValue()));
      assertThat(cells[7]).isEqualTo(p.get("togetherOfRate").isNull() ? "" : String.format(Locale.ROOT, "%.2f",
          p.get("togetherOfRate").doubleValue()));
    }
    // the scenario's figures are of both kinds: defined for the policies that share the host, not for the
    // unpaced client, whose first process is done before the last joins
    assertThat(result.policy("hostpace").sharesJain()).isNotNull();
    assertThat(result.policy("hostpace").togetherOfRate()).isNotNull();
    assertThat(result.policy("unpaced").sharesJain()).isNull();
  }

  /**
   * {@code node} has exactly the JSON's fields of a policy, each {@code policy}'s figure of that name;
   * with several processes, also the accepted rate, the shares (null where not defined) and each
   * process's figures.
   */
  static void assertJsonIs(JsonNode node, PacingResult.Policy policy) {
    List<String> fields = new ArrayList<>(List.of("name", "completed", "lost", "refusals",
        "refusalPct", "finishSeconds", "goodputRatio", "p50WaitMs", "p99WaitMs", "lateRefusals", "lateRefusalPct"));
    if (policy.firstWindowRefusalPct() != null) {
      fields.add("firstWindowRefusalPct");
      assertThat(node.get("firstWindowRefusalPct").doubleValue()).as(policy.name())
          .isEqualTo(policy.firstWindowRefusalPct());
    }
    if (policy.processes().size() > 1) {
      fields.addAll(List.of("acceptedPerSecond", "sharesJain", "togetherOfRate", "processes"));
      assertThat(node.get("acceptedPerSecond").doubleValue()).as(policy.name()).isEqualTo(policy.acceptedPerSecond());
      assertThat(node.get("sharesJain").isNull() ? null : node.get("sharesJain").doubleValue()).as(policy.name())
          .isEqualTo(policy.sharesJain());
      assertThat(node.get("togetherOfRate").isNull() ? null : node.get("togetherOfRate").doubleValue()).as(policy.name())
          .isEqualTo(policy.togetherOfRate());
      assertThat(node.get("processes")).as(policy.name()).hasSize(policy.processes().size());
      for (int i = 0; i < policy.processes().size(); i++) {
        JsonNode row = node.get("processes").get(i);
        PacingResult.Process process = policy.processes().get(i);
        assertThat(fieldNames(row)).containsExactly("client", "process", "joinSeconds", "requests", "completed", "lost",
            "refusals", "openingRefusals");
        assertThat(row.get("client").intValue()).isEqualTo(process.client());
        assertThat(row.get("process").intValue()).isEqualTo(process.process());
        assertThat(row.get("joinSeconds").doubleValue()).isEqualTo(process.joinSeconds());
        assertThat(row.get("requests").intValue()).isEqualTo(process.requests());
        assertThat(row.get("completed").intValue()).isEqualTo(process.completed());
        assertThat(row.get("lost").intValue()).isEqualTo(process.lost());
        assertThat(row.get("refusals").intValue()).isEqualTo(process.refusals());
        assertThat(row.get("openingRefusals").intValue()).isEqualTo(process.openingRefusals());
      }
    }
    assertThat(fieldNames(node)).as(policy.name()).containsExactlyElementsOf(fields);
    assertThat(node.get("name").textValue()).isEqualTo(policy.name());
    assertThat(node.get("completed").isInt()).as("completed is a whole number").isTrue();
    assertThat(node.get("completed").intValue()).as(policy.name()).isEqualTo(policy.completed());
    assertThat(node.get("lost").intValue()).as(policy.name()).isEqualTo(policy.lost());
    assertThat(node.get("refusals").intValue()).as(policy.name()).isEqualTo(policy.refusals());
    assertThat(node.get("refusalPct").doubleValue()).as(policy.name()).isEqualTo(policy.refusalPct());
    assertThat(node.get("finishSeconds").doubleValue()).as(policy.name()).isEqualTo(policy.finishSeconds());
    assertThat(node.get("goodputRatio").doubleValue()).as(policy.name()).isEqualTo(policy.goodputRatio());
    assertThat(node.get("p50WaitMs").longValue()).as(policy.name()).isEqualTo(policy.p50WaitMs());
    assertThat(node.get("p99WaitMs").longValue()).as(policy.name()).isEqualTo(policy.p99WaitMs());
    assertThat(node.get("lateRefusals").isInt()).as("lateRefusals is a whole number").isTrue();
    assertThat(node.get("lateRefusals").intValue()).as(policy.name()).isEqualTo(policy.lateRefusals());
    assertThat(node.get("lateRefusalPct").doubleValue()).as(policy.name()).isEqualTo(policy.lateRefusalPct());
  }

  static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void aClientsOwnLimitsAreGivenToTheEnginesPoliciesAndConfiguredKeepsTheServers() {
    // A bucket of five a second that counts refusals against the client, 100 requests at once.
    String scenario = """
        { "servers": [ { "host": "b.test", "model": "token-bucket", "rate": 5.0, "burst": 5, "refusalsCount": true } ],
          "clients": [ { "host": "b.test", "requests": 100 %s } ],
          "policies": [ "seed", "hostpace", "configured" ] }""";
    PacingResult told = new PacingWorkload().replay(PacingScenarioParser.parse(
        scenario.formatted(", \"limits\": \"perSecond:5\"")), Simulator.ORIGIN);
    PacingResult low = new PacingWorkload().replay(PacingScenarioParser.parse(
        scenario.formatted(", \"limits\": \"perSecond:1\"")), Simulator.ORIGIN);
    PacingResult none = new PacingWorkload().replay(PacingScenarioParser.parse(scenario.formatted("")), Simulator.ORIGIN);

    // Told the host's rate, neither rule is refused; told nothing, each learns it from refusals.
    for (String policy : List.of("seed", "hostpace")) {
      assertThat(told.policy(policy).refusals()).as(policy + " told perSecond:5").isZero();
      assertThat(none.policy(policy).refusals()).as(policy + " told nothing").isPositive();
      // Told one a second, the engine starts one a second: the last of 100 no sooner than 99 s.
      assertThat(low.policy(policy).refusals()).as(policy + " told perSecond:1").isZero();
      assertThat(low.policy(policy).finishSeconds()).as(policy + " told perSecond:1").isGreaterThanOrEqualTo(99.0);
    }
    // configured is given the server's own limits, whatever the client's user guessed.
    assertThat(low.policy("configured")).usingRecursiveComparison().isEqualTo(none.policy("configured"));
    assertThat(told.policy("configured")).usingRecursiveComparison().isEqualTo(none.policy("configured"));
  }

  @Test
  void aReplayDoesNotDependOnTheClocksOrigin() throws IOException {
    PacingScenario scenario = PacingScenarioParser.parse(Files.readString(DIR.resolve("qlever-like.json")));
    PacingResult a = new PacingWorkload().replay(scenario, Simulator.ORIGIN);
    PacingResult b = new PacingWorkload().replay(scenario, -123_456_789_000L);
    assertThat(b.toJson()).isEqualTo(a.toJson());
  }

  /** Every shipped scenario's replay, by file name: replayed once for the tests of every scenario's figures. */
  private static Map<String, PacingResult> shipped;

  static synchronized Map<String, PacingResult> shipped() throws IOException {
    if (shipped == null) {
      Map<String, PacingResult> results = new TreeMap<>();
      try (Stream<Path> files = Files.list(DIR)) {
        for (Path file : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
          results.put(file.getFileName().toString(), Simulator.PACING.simulate(file));
        }
      }
      shipped = results;
    }
    return shipped;
  }

  @Test
  void everyShippedScenarioAndPolicyHasAGoodputOfZeroToOneAndPercentagesOfZeroToAHundred() throws IOException {
    assertThat(shipped()).hasSizeGreaterThanOrEqualTo(11);
    shipped().forEach((file, result) -> {
      for (PacingResult.Policy p : result.policies()) {
        String what = file + " " + p.name();
        assertThat(p.goodputRatio()).as(what + " goodput").isBetween(0.0, 1.0);
        assertThat(p.refusalPct()).as(what + " refused %").isBetween(0.0, 100.0);
        assertThat(p.lateRefusalPct()).as(what + " refused after 10 s %").isBetween(0.0, 100.0);
        assertThat(p.lateRefusals()).as(what + " refused after 10 s").isLessThanOrEqualTo(p.refusals());
      }
    });
  }

  @Test
  void aPolicyThatLostRequestsHasAGoodputNoHigherThanItsShareCompleted() throws IOException {
    int lossy = 0;
    for (Map.Entry<String, PacingResult> replay : shipped().entrySet()) {
      for (PacingResult.Policy p : replay.getValue().policies()) {
        if (p.lost() > 0) {
          lossy++;
          double share = (double) p.completed() / (p.completed() + p.lost());
          assertThat(p.goodputRatio()).as(replay.getKey() + " " + p.name() + ": %d of %d completed", p.completed(),
              p.completed() + p.lost()).isLessThanOrEqualTo(PacingFigures.round(share, 2));
        }
      }
    }
    assertThat(lossy).as("policies that lost requests").isGreaterThan(10);

    // Plain client code on the QLever-like server completes 51 of 300 requests, refused in 97 % of its
    // attempts after the first 10 s as in all: it scores a sixth of the servers' rate, not nineteen twentieths.
    PacingResult.Policy unpaced = shipped().get("qlever-like.json").policy("unpaced");
    assertThat(unpaced.completed()).isEqualTo(51);
    assertThat(unpaced.lost()).isEqualTo(249);
    assertThat(unpaced.goodputRatio()).isEqualTo(0.16);
    assertThat(unpaced.refusalPct()).isEqualTo(97.1);
    assertThat(unpaced.lateRefusalPct()).isEqualTo(97.1);
  }

  @Test
  void everyShippedScenarioParses() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      List<Path> scenarios = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
      assertThat(scenarios).hasSizeGreaterThanOrEqualTo(11);
      for (Path file : scenarios) {
        PacingScenario scenario = PacingScenarioParser.parse(Files.readString(file));
        assertThat(scenario.policies()).as(file.toString()).hasSize(4);
      }
    }
  }

  @Test
  void everyShippedScenarioIsInTheReadmesListOfFiles() throws IOException {
    String readme = Files.readString(DIR.resolve("README.md"));
    try (Stream<Path> files = Files.list(DIR)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        assertThat(readme).as("scenarios/pacing/README.md").contains("`" + file.getFileName() + "`");
      }
    }
  }

  @Test
  void theScenariosAddedForTheTableAreWhatTheReadmeSays() throws IOException {
    PacingScenario bucket = parse("bucket-burst-5.json");
    assertThat(bucket.servers().get(0)).extracting("model", "rate", "burst", "status", "retryAfter")
        .containsExactly(PacingScenario.Model.TOKEN_BUCKET, 2.0, 5, 429, PacingScenario.RetryAfter.NONE);
    assertThat(bucket.clients().get(0)).extracting("requests", "perSecond", "inFlight").containsExactly(600, 0.0, 32);

    PacingScenario window = parse("window-30-per-minute.json");
    assertThat(window.servers().get(0)).extracting("model", "limit", "window", "retryAfter")
        .containsExactly(PacingScenario.Model.FIXED_WINDOW, 30, 60_000_000_000L, PacingScenario.RetryAfter.NONE);
    assertThat(window.clients().get(0)).extracting("requests", "perSecond", "inFlight").containsExactly(300, 0.0, 8);

    PacingScenario steps = parse("rate-steps.json");
    assertThat(steps.servers().get(0).rate()).isEqualTo(4.0);
    assertThat(steps.servers().get(0).changes()).extracting("at", "rate")
        .containsExactly(tuple(60_000_000_000L, 1.0), tuple(180_000_000_000L, 3.0));
    assertThat(steps.clients().get(0)).extracting("requests", "perSecond").containsExactly(1200, 5.0);

    PacingScenario debt = parse("refusals-count-5.json");
    assertThat(debt.servers().get(0)).extracting("rate", "burst", "status", "retryAfter", "refusalsCount")
        .containsExactly(5.0, 1, 503, PacingScenario.RetryAfter.NONE, true);
    assertThat(debt.clients().get(0).requests()).isEqualTo(1500);

    for (String name : List.of("limiter-retry-after.json", "limiter-retry-after-long.json")) {
      PacingScenario limiter = parse(name);
      assertThat(limiter.servers().get(0)).as(name).extracting("model", "rate", "burst", "status", "retryAfter")
          .containsExactly(PacingScenario.Model.TOKEN_BUCKET, 5.0, 5, 429, PacingScenario.RetryAfter.SECONDS);
      assertThat(limiter.clients().get(0).requests()).as(name).isEqualTo(name.contains("long") ? 1500 : 80);
    }

    for (String name : List.of("four-processes.json", "four-processes-fleet.json")) {
      PacingScenario four = parse(name);
      assertThat(four.servers().get(0)).as(name).extracting("rate", "burst", "retryAfter")
          .containsExactly(3.0, 1, PacingScenario.RetryAfter.NONE);
      assertThat(four.clients().get(0)).as(name).extracting("requests", "inFlight", "processes", "sharedState", "fleetLatency")
          .containsExactly(1200, 16, 4, false, name.contains("fleet") ? 1_000_000L : -1L);
    }

    for (String name : List.of("two-processes.json", "eight-processes.json")) {
      PacingScenario several = parse(name);
      boolean two = name.startsWith("two");
      assertThat(several.servers().get(0)).as(name).extracting("model", "rate", "burst", "status", "retryAfter", "latency")
          .containsExactly(PacingScenario.Model.TOKEN_BUCKET, two ? 1.0 : 4.0, 1, 429, PacingScenario.RetryAfter.NONE, 50_000_000L);
      assertThat(several.clients().get(0)).as(name).extracting("requests", "perSecond", "inFlight", "processes", "sharedState", "fleetLatency")
          .containsExactly(two ? 360 : 1440, 0.0, 16, two ? 2 : 8, false, -1L);
    }

    for (String name : List.of("four-processes-late.json", "four-processes-late-fleet.json")) {
      PacingScenario late = parse(name);
      assertThat(late.servers().get(0)).as(name).extracting("model", "rate", "burst", "status", "retryAfter")
          .containsExactly(PacingScenario.Model.TOKEN_BUCKET, 1.0, 1, 429, PacingScenario.RetryAfter.NONE);
      assertThat(late.clients().get(0)).as(name).extracting("requests", "perSecond", "inFlight", "processes", "fleetLatency")
          .containsExactly(300, 0.0, 16, 4, name.contains("fleet") ? 1_000_000L : -1L);
      assertThat(late.clients().get(0).joins()).as(name)
          .containsExactly(0L, 30_000_000_000L, 60_000_000_000L, 90_000_000_000L);
    }

    PacingScenario fast = parse("fast-host.json");
    assertThat(fast.servers().get(0)).extracting("model", "maxConcurrent", "latency")
        .containsExactly(PacingScenario.Model.GATE, 1000, 50_000_000L);
    assertThat(fast.clients().get(0)).extracting("requests", "perSecond", "inFlight").containsExactly(32, 0.0, 32);
  }

  @Test
  void toldTheServersLimitTheEngineIsRefusedNothingOnTheScenariosAddedForTheTable() throws IOException {
    // not rate-steps (told the first rate, not its changes) nor four-processes (each told a quarter, unspaced)
    for (String name : List.of("bucket-burst-5", "window-30-per-minute", "refusals-count-5", "limiter-retry-after",
        "limiter-retry-after-long", "four-processes-fleet", "fast-host")) {
      PacingResult.Policy configured = replay(name + ".json").policy("configured");
      assertThat(configured.lost()).as(name).isZero();
      assertThat(configured.refusals()).as(name).isZero();
      assertThat(configured.goodputRatio()).as(name).isGreaterThanOrEqualTo(0.97); // a rate's starts go 2 % late (SPEC P1)
    }
  }

  @Test
  void R2_theSeedsRuleOnARateLimiterWithRetryAfterPausesThenSendsThirtyTwoAgainAndLosesRequests() throws IOException {
    // As at KGF's gate: SPEC R2 to the letter, each pause of 1 s followed by the whole in-flight limit at once.
    PacingResult.Policy seed = replay("limiter-retry-after.json").policy("seed");

    assertThat(seed.completed()).isEqualTo(66);
    assertThat(seed.lost()).isEqualTo(14);
    assertThat(seed.refusals()).isEqualTo(339);
    assertThat(seed.refusalsBetween(0, 0.01)).isEqualTo(27); // the opening 32 against a burst of 5
  }

  @Test
  void R4_theSeedsRuleOnABucketWithABurstOfFive() throws IOException {
    PacingResult result = replay("bucket-burst-5.json");
    PacingResult.Policy seed = result.policy("seed");

    // pinned, as on qlever-like, so that the model and the seed's rule cannot drift silently
    assertThat(result.idealSeconds()).isEqualTo(297.6);
    assertThat(seed.completed()).isEqualTo(600);
    assertThat(seed.refusals()).isEqualTo(122);
    assertThat(seed.lateRefusals()).isEqualTo(87);
    assertThat(seed.finishSeconds()).isEqualTo(297.9);
    assertThat(seed.refusalsBetween(0, 0.01)).isEqualTo(27); // the opening 32 against a burst of 5
  }

  @Test
  void onAHostThatRefusesNothingTheBurstIsOneRoundTrip() throws IOException {
    PacingResult result = replay("fast-host.json");

    assertThat(result.idealSeconds()).isEqualTo(0.1); // 50 ms, to one decimal
    for (String name : List.of("seed", "configured", "unpaced")) {
      PacingResult.Policy policy = result.policy(name);
      assertThat(policy.refusals()).as(name).isZero();
      assertThat(policy.startsBetween(0, 0.001)).as(name).isEqualTo(32); // all 32 at once
      assertThat(policy.finishSeconds()).as(name).isEqualTo(0.1);
      assertThat(policy.goodputRatio()).as(name).isEqualTo(1.0);
    }
  }

  static PacingScenario parse(String file) throws IOException {
    return PacingScenarioParser.parse(Files.readString(DIR.resolve(file)));
  }

  @Test
  void theChartIsAPngWithAPanelPerPolicy(@TempDir Path dir) throws IOException {
    Path png = dir.resolve("charts/qlever-like.png");
    replay("qlever-like.json").chart(png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(1000);
    assertThat(image.getHeight()).isEqualTo(PacingChart.HEADER + 4 * PacingChart.PANEL);
  }

  @Test
  void theCommandPrintsTheJsonAndWritesTheChart(@TempDir Path dir) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path png = dir.resolve("q.png");
    int status = Main.run(new String[] {"pacing", DIR.resolve("qlever-like.json").toString(), "--chart", png.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(status).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("{\"policies\":[");
    assertThat(png).exists();
  }

  @Test
  void aBadScenarioIsOneLineNamingTheFieldAndExitStatus2(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"servers\":[{\"host\":\"a.test\",\"model\":\"bucket\"}],\"clients\":[],\"policies\":[]}");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Main.run(new String[] {"pacing", bad.toString()}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(bad + ": servers[0].model: expected \"token-bucket\", "
        + "\"fixed-window\" or \"gate\", got \"bucket\"" + System.lineSeparator());
  }
}
