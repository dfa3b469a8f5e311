package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whether several processes shared their host or took it in turns ({@link PacingShares}): Jain's
 * index of their accepted attempts while all ran, and their rate then, of the host's; first on
 * times given by hand, then on replays whose shares follow from the server model alone (the unpaced
 * client learns nothing, so no change to a learning rule moves them).
 */
class PacingSharesTest {

  /** Times in seconds, as nanoseconds. */
  static List<Long> at(double... seconds) {
    List<Long> out = new ArrayList<>();
    for (double s : seconds) {
      out.add(Math.round(s * 1e9));
    }
    return out;
  }

  /** One a second, from {@code first} to {@code last} seconds. */
  static List<Long> everySecond(int first, int last) {
    List<Long> out = new ArrayList<>();
    for (int s = first; s <= last; s++) {
      out.add(s * 1_000_000_000L);
    }
    return out;
  }

  static long[] joins(double... seconds) {
    long[] out = new long[seconds.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Math.round(seconds[i] * 1e9);
    }
    return out;
  }

  @Test
  void oneProcessWithTheHostAloneWhileTheOtherWaitsIsJainOfOneOverN() {
    // both from 0 s; the first accepted at 0, ..., 9 s, the second only after it, at 10, ..., 19 s
    PacingShares shares = PacingShares.of(joins(0, 0), List.of(everySecond(0, 9), everySecond(10, 19)));

    assertThat(shares).isNotNull();
    assertThat(shares.from).isZero();
    assertThat(shares.to).isEqualTo(9_000_000_000L);   // the first one's last accepted
    assertThat(shares.counts()).containsExactly(9, 0);   // [0, 9 s): its last one ends the span
    assertThat(shares.jain()).isEqualTo(0.5);
    assertThat(shares.perSecond()).isEqualTo(1.0);
  }

  @Test
  void processesThatTakeEqualSharesAreJainOfOne() {
    // turn about: the first at 0, 2, ..., 18 s, the second at 1, 3, ..., 19 s
    PacingShares shares = PacingShares.of(joins(0, 0),
        List.of(at(0, 2, 4, 6, 8, 10, 12, 14, 16, 18), at(1, 3, 5, 7, 9, 11, 13, 15, 17, 19)));

    assertThat(shares).isNotNull();
    assertThat(shares.counts()).containsExactly(9, 9);
    assertThat(shares.jain()).isEqualTo(1.0);
    assertThat(shares.perSecond()).isEqualTo(1.0);
  }

  @Test
  void jainsIndexOfUnevenSharesIsTheSquaredSumOverNTimesTheSumOfSquares() {
    // 3, 1 and 0 of them in [0, 10 s): 16 / (3 × 10)
    PacingShares shares = PacingShares.of(joins(0, 0, 0),
        List.of(at(1, 2, 3, 10), at(4, 20), at(30)));

    assertThat(shares).isNotNull();
    assertThat(shares.counts()).containsExactly(3, 1, 0);
    assertThat(shares.jain()).isCloseTo(16.0 / 30, within(1e-12));
    assertThat(shares.perSecond()).isEqualTo(0.4);
  }

  @Test
  void theSpanRunsFromTheLatestJoinWhereverItIsInTheListToTheEarliestLastAccepted() {
    // joined at 0, 30 and 15 s (joinAtSeconds need not be in order), each accepted once a second
    // from its join, the first until 59 s, the others later: [30, 59 s), 29 each
    PacingShares shares = PacingShares.of(joins(0, 30, 15),
        List.of(everySecond(0, 59), everySecond(30, 99), everySecond(15, 79)));

    assertThat(shares).isNotNull();
    assertThat(shares.from).isEqualTo(30_000_000_000L);
    assertThat(shares.to).isEqualTo(59_000_000_000L);
    assertThat(shares.counts()).containsExactly(29, 29, 29);
    assertThat(shares.jain()).isEqualTo(1.0);
    assertThat(shares.perSecond()).isEqualTo(3.0);
  }

  @Test
  void aProcessWithNoneAcceptedDoesNotEndTheSpanAndCountsNone() {
    PacingShares shares = PacingShares.of(joins(0, 0), List.of(everySecond(0, 9), List.of()));

    assertThat(shares).isNotNull();
    assertThat(shares.to).isEqualTo(9_000_000_000L);
    assertThat(shares.counts()).containsExactly(9, 0);
    assertThat(shares.jain()).isEqualTo(0.5);
  }

  @Test
  void noSharesWithOneProcessOrWhereTheSpanIsEmpty() {
    assertThat(PacingShares.of(joins(0), List.of(everySecond(0, 9)))).as("one process").isNull();
    assertThat(PacingShares.of(joins(0, 20), List.of(everySecond(0, 9), everySecond(20, 29))))
        .as("the first done before the second joins").isNull();
    assertThat(PacingShares.of(joins(0, 0), List.of(List.of(), List.of()))).as("none accepted").isNull();
    assertThat(PacingShares.of(joins(0, 0), List.of(at(5), at(10)))).as("none accepted before the first one's last")
        .isNull();
  }

  @Test
  void theHostsRateIsThatOfTheScenariosOneTokenBucketWhereItStaysTheSame() {
    String client = "\"clients\": [ { \"host\": \"q.test\", \"requests\": 10, \"processes\": 2 } ], \"policies\": [\"unpaced\"] }";
    assertThat(PacingShares.hostRate(PacingScenarioParser.parse(
        "{ \"servers\": [ { \"host\": \"q.test\", \"model\": \"token-bucket\", \"rate\": 2.5 } ], " + client)))
        .isEqualTo(2.5);
    assertThat(PacingShares.hostRate(PacingScenarioParser.parse(
        "{ \"servers\": [ { \"host\": \"q.test\", \"model\": \"token-bucket\", \"rate\": 2.5,"
            + " \"changes\": [ { \"atSeconds\": 60, \"burst\": 5 } ] } ], " + client)))
        .as("a change of its burst only").isEqualTo(2.5);
    assertThat(PacingShares.hostRate(PacingScenarioParser.parse(
        "{ \"servers\": [ { \"host\": \"q.test\", \"model\": \"token-bucket\", \"rate\": 2.5,"
            + " \"changes\": [ { \"atSeconds\": 60, \"rate\": 1 } ] } ], " + client)))
        .as("a rate that changes").isZero();
    assertThat(PacingShares.hostRate(PacingScenarioParser.parse(
        "{ \"servers\": [ { \"host\": \"q.test\", \"model\": \"gate\", \"maxConcurrent\": 4 } ], " + client)))
        .as("a gate").isZero();
    assertThat(PacingShares.hostRate(PacingScenarioParser.parse(
        "{ \"servers\": [ { \"host\": \"q.test\", \"model\": \"token-bucket\", \"rate\": 2.5 },"
            + " { \"host\": \"r.test\", \"model\": \"token-bucket\", \"rate\": 2.5 } ], " + client)))
        .as("two servers").isZero();
  }

  @ParameterizedTest(name = "{0} processes")
  @ValueSource(ints = {2, 3})
  void replayed_aProcessThatHoldsAGateBackToBackHasItAloneWhileTheOthersWaitJainOfOneOverN(int n) {
    // A gate of one place, each accepted request holding it its second's round trip, and unpaced
    // processes of one request in flight: the first is accepted at 0 s and starts its next as its
    // answer frees the place, at 1, 2, ... s, before any other's retry of that moment; the others'
    // attempts are refused (each again a second after its answer, up to 5 retries, then lost) until
    // it has sent its 20.
    String json = """
        { "servers": [ { "host": "g.test", "model": "gate", "maxConcurrent": 1, "latencyMs": 1000 } ],
          "clients": [ { "host": "g.test", "requests": %d, "inFlight": 1, "processes": %d } ],
          "policies": [ "unpaced" ] }
        """.formatted(20 * n, n);
    PacingResult.Policy unpaced = Simulator.PACING.simulate(json).policy("unpaced");

    PacingResult.Process first = unpaced.processes().get(0);
    double firstDone = first.accepted()[first.accepted().length - 1];
    assertThat(first.completed()).isEqualTo(20);
    for (PacingResult.Process other : unpaced.processes().subList(1, n)) {
      assertThat(other.acceptedBetween(0, firstDone)).as("the others' accepted while the first ran").isZero();
      assertThat(other.refusals()).as("the others waited, refused").isPositive();
    }
    assertThat(unpaced.sharesJain()).isCloseTo(1.0 / n, within(0.005));
    assertThat(unpaced.togetherOfRate()).as("a gate has no rate").isNull();
  }

  @Test
  void replayed_twoProcessesThatTakeABucketsTokensTurnAboutHaveEqualShares() {
    // A bucket of one a second, two unpaced processes of one request in flight, each refused attempt
    // again a second after its 50 ms answer: the refused one of each moment is the first at the
    // next token, so that they alternate, refused as often as accepted.
    String json = """
        { "servers": [ { "host": "q.test", "model": "token-bucket", "rate": 1, "latencyMs": 50 } ],
          "clients": [ { "host": "q.test", "requests": 80, "inFlight": 1, "processes": 2 } ],
          "policies": [ "unpaced" ] }
        """;
    PacingResult.Policy unpaced = Simulator.PACING.simulate(json).policy("unpaced");

    assertThat(unpaced.processes()).allSatisfy(p -> assertThat(p.refusals()).as("contended").isGreaterThan(50));
    assertThat(unpaced.sharesJain()).isCloseTo(1.0, within(0.005));
    // the refused attempt's second of back-off leaves a token unused now and then
    assertThat(unpaced.togetherOfRate()).isBetween(0.9, 1.0);
  }

  @Test
  void replayed_withJoinEverySecondsTheSharesAreCountedFromTheLastJoin() {
    // A bucket of two a second holding two, each process one request in flight held a second: each
    // is accepted once a second from its join, the first from 0 s, the second from 20 s, 40 each.
    // From the second's join to the first's last, [20, 39 s), they hold the bucket equally and
    // fully; counted from 0 s the first would have had 39 to the second's 19 (0.89, and 0.74 of the rate).
    String json = """
        { "servers": [ { "host": "q.test", "model": "token-bucket", "rate": 2, "burst": 2, "latencyMs": 1000 } ],
          "clients": [ { "host": "q.test", "requests": 80, "inFlight": 1, "processes": 2, "joinEverySeconds": 20 } ],
          "policies": [ "unpaced" ] }
        """;
    PacingResult.Policy unpaced = Simulator.PACING.simulate(json).policy("unpaced");

    assertThat(unpaced.processes()).extracting(PacingResult.Process::joinSeconds).containsExactly(0.0, 20.0);
    assertThat(unpaced.refusals()).isZero();
    assertThat(unpaced.sharesJain()).isEqualTo(1.0);
    assertThat(unpaced.togetherOfRate()).isEqualTo(1.0);
  }

  @Test
  void replayed_withJoinAtSecondsTheSpanStartsAtTheLatestJoinNotTheLastListed() {
    // The same, three processes at 0, 30 and 15 s on a bucket of three a second: all ran from 30 s
    // (not 15 s, the last listed) to the first one's last, 39 s; from 15 s the second would be short.
    String json = """
        { "servers": [ { "host": "q.test", "model": "token-bucket", "rate": 3, "burst": 3, "latencyMs": 1000 } ],
          "clients": [ { "host": "q.test", "requests": 120, "inFlight": 1, "processes": 3, "joinAtSeconds": [0, 30, 15] } ],
          "policies": [ "unpaced" ] }
        """;
    PacingResult.Policy unpaced = Simulator.PACING.simulate(json).policy("unpaced");

    assertThat(unpaced.processes()).extracting(PacingResult.Process::joinSeconds).containsExactly(0.0, 30.0, 15.0);
    assertThat(unpaced.refusals()).isZero();
    assertThat(unpaced.sharesJain()).isEqualTo(1.0);
    assertThat(unpaced.togetherOfRate()).isEqualTo(1.0);
  }

  @Test
  void everyShippedScenarioHasSharesOfOneOverNToOneWithSeveralProcessesAndNoneWithOne() throws IOException {
    PacingSimulationTest.shipped().forEach((file, result) -> {
      for (PacingResult.Policy p : result.policies()) {
        String what = file + " " + p.name();
        int n = p.processes().size();
        if (n < 2) {
          assertThat(p.sharesJain()).as(what).isNull();
          assertThat(p.togetherOfRate()).as(what).isNull();
        } else if (p.sharesJain() != null) {
          assertThat(p.sharesJain()).as(what).isBetween(PacingFigures.round(1.0 / n, 2), 1.0);
        } else {
          assertThat(p.togetherOfRate()).as(what + ": no rate without shares").isNull();
        }
      }
    });
  }
}
