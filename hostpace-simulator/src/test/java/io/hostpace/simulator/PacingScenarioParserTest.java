package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.Limits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A bad pacing scenario is reported by the path of its field, with what was expected and what came. */
class PacingScenarioParserTest {

  static final String SERVER = "{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0}";
  static final String CLIENT = "{\"host\":\"q.test\",\"requests\":10}";

  static String scenario(String server, String client, String policies) {
    return "{\"servers\":[" + server + "],\"clients\":[" + client + "],\"policies\":" + policies + "}";
  }

  static void fails(String json, String field, String message) {
    assertThatThrownBy(() -> PacingScenarioParser.parse(json))
        .isInstanceOfSatisfying(ScenarioException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessage(field.isEmpty() ? message : field + ": " + message);
  }

  @Test
  void theOriginalFormatsExampleWithItsCommentsParses() {
    PacingScenario scenario = PacingScenarioParser.parse("""
        { "seed": 1,                                  // all randomness comes from this
          "maxSeconds": 3600,
          "servers": [ { "host": "qlever.test",
                         "model": "token-bucket",     // token-bucket | fixed-window | gate
                         "rate": 1.0, "burst": 1,     // token-bucket: per second, and burst
                         "status": 429,               // what a refusal answers
                         "retryAfter": "none",        // none | seconds | date | until-free
                         "latencyMs": 50,             // time to answer a request it accepts
                         "refusalsCount": false,      // do refused requests use up quota?
                         "changes": [ { "atSeconds": 300, "rate": 0.5 } ] } ],
          "clients": [ { "host": "qlever.test", "requests": 300,
                         "arrival": "burst",          // burst | { "perSecond": 2.0 }
                         "inFlight": 32, "processes": 1 } ],
          "policies": [ "seed", "hostpace", "configured", "unpaced" ] }
        """);
    assertThat(scenario.servers().get(0).changes()).hasSize(1);
    assertThat(scenario.servers().get(0).changes().get(0).rate()).isEqualTo(0.5);
    assertThat(scenario.clients().get(0).inFlight()).isEqualTo(32);
    assertThat(scenario.policies()).hasSize(4);
    assertThat(scenario.clients().get(0).sharedState()).isFalse();
    assertThat(scenario.runs()).isEqualTo(1);
  }

  @Test
  void aServersLatencyJitterIsReadInNanosecondsAndIsNoneWithoutIt() {
    assertThat(PacingScenarioParser.parse(scenario(
        "{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0,\"latencyJitterMs\":30.5}", CLIENT, "[\"seed\"]"))
        .servers().get(0).latencyJitter()).isEqualTo(30_500_000L);
    assertThat(PacingScenarioParser.parse(scenario(SERVER, CLIENT, "[\"seed\"]")).servers().get(0).latencyJitter()).isZero();
  }

  @Test
  void aFixedWindowsWindowsBeginAtTheGivenSecondsAndAtTheDaysStartWithout() {
    String window = "{\"host\":\"q.test\",\"model\":\"fixed-window\",\"limit\":60,\"windowSeconds\":60%s}";
    assertThat(PacingScenarioParser.parse(scenario(window.formatted(",\"windowsFromSeconds\":17.3"), CLIENT, "[\"seed\"]"))
        .servers().get(0).windowsFrom()).isEqualTo(17_300_000_000L);
    assertThat(PacingScenarioParser.parse(scenario(window.formatted(""), CLIENT, "[\"seed\"]"))
        .servers().get(0).windowsFrom()).isZero();
  }

  @Test
  void processesShareWhatTheyLearnOnlyWhenTheScenarioSaysSo() {
    PacingScenario scenario = PacingScenarioParser.parse(scenario(SERVER,
        "{\"host\":\"q.test\",\"requests\":10,\"processes\":2,\"sharedState\":true}", "[\"seed\"]"));
    assertThat(scenario.clients().get(0).sharedState()).isTrue();
    assertThat(scenario.clients().get(0).fleetLatency()).isEqualTo(-1);
  }

  @Test
  void processesJoinAFleetWithTheLatencyTheScenarioGives() {
    PacingScenario scenario = PacingScenarioParser.parse(scenario(SERVER,
        "{\"host\":\"q.test\",\"requests\":10,\"processes\":2,\"fleetLatencyMs\":2.5}", "[\"seed\"]"));
    assertThat(scenario.clients().get(0).fleetLatency()).isEqualTo(2_500_000);
  }

  @Test
  void processesJoinEveryGivenSecondsOrAtTheTimesGivenAndAllAtOnceWithoutEither() {
    assertThat(PacingScenarioParser.parse(scenario(SERVER,
        "{\"host\":\"q.test\",\"requests\":10,\"processes\":4,\"joinEverySeconds\":30}", "[\"seed\"]"))
        .clients().get(0).joins()).containsExactly(0L, 30_000_000_000L, 60_000_000_000L, 90_000_000_000L);
    assertThat(PacingScenarioParser.parse(scenario(SERVER,
        "{\"host\":\"q.test\",\"requests\":10,\"processes\":3,\"joinAtSeconds\":[5, 0, 2.5]}", "[\"seed\"]"))
        .clients().get(0).joins()).containsExactly(5_000_000_000L, 0L, 2_500_000_000L);
    assertThat(PacingScenarioParser.parse(scenario(SERVER,
        "{\"host\":\"q.test\",\"requests\":10,\"processes\":2}", "[\"seed\"]"))
        .clients().get(0).joins()).containsExactly(0L, 0L);
  }

  @Test
  void aClientsOwnLimitsAreReadAsTheEngineReadsThemAndABadOneIsNamed() {
    assertThat(PacingScenarioParser.parse(scenario(SERVER,
        "{\"host\":\"q.test\",\"requests\":10,\"limits\":\"perSecond:2,inFlight:4\"}", "[\"seed\"]"))
        .clients().get(0).limits()).isEqualTo(Limits.parse("inFlight:4,perSecond:2"));
    assertThat(PacingScenarioParser.parse(scenario(SERVER, CLIENT, "[\"seed\"]")).clients().get(0).limits()).isNull();
    fails(scenario(SERVER, "{\"host\":\"q.test\",\"requests\":10,\"limits\":\"perSecond:fast\"}", "[\"seed\"]"),
        "clients[0].limits", "perSecond 'fast' is not a decimal number");
    fails(scenario(SERVER, "{\"host\":\"q.test\",\"requests\":10,\"limits\":2}", "[\"seed\"]"),
        "clients[0].limits", "expected a non-empty string, got 2");
  }

  @Test
  void aJoinThatCannotBeIsNamedWithWhatWasExpected() {
    String every = "{\"host\":\"q.test\",\"requests\":10,\"processes\":%d,\"joinEverySeconds\":%s}";
    fails(scenario(SERVER, every.formatted(1, "30"), "[\"seed\"]"), "clients[0].joinEverySeconds",
        "expected processes of 2 or more to join apart, got 1 process");
    fails(scenario(SERVER, every.formatted(4, "0"), "[\"seed\"]"), "clients[0].joinEverySeconds",
        "expected a number of seconds above 0 (at most 10000000), got 0");
    fails(scenario(SERVER, every.formatted(4, "\"30s\""), "[\"seed\"]"), "clients[0].joinEverySeconds",
        "expected a number of seconds above 0 (at most 10000000), got \"30s\"");
    fails("{\"maxSeconds\":60," + scenario(SERVER, every.formatted(4, "30"), "[\"seed\"]").substring(1),
        "clients[0].joinEverySeconds", "process 2 would join at 60.0 s, not before maxSeconds (60.0 s): "
            + "expected every process to join before the run ends");

    String at = "{\"host\":\"q.test\",\"requests\":10,\"processes\":3,\"joinAtSeconds\":%s}";
    fails(scenario(SERVER, at.formatted("[0, 30]"), "[\"seed\"]"), "clients[0].joinAtSeconds",
        "expected one time a process (3), got 2");
    fails(scenario(SERVER, at.formatted("30"), "[\"seed\"]"), "clients[0].joinAtSeconds",
        "expected a list of seconds, one a process [...], got 30");
    fails(scenario(SERVER, at.formatted("[0, -1, 30]"), "[\"seed\"]"), "clients[0].joinAtSeconds[1]",
        "expected a number of seconds of 0 or more (at most 10000000), got -1");
    fails("{\"maxSeconds\":100," + scenario(SERVER, at.formatted("[0, 30, 100]"), "[\"seed\"]").substring(1),
        "clients[0].joinAtSeconds[2]", "process 2 would join at 100.0 s, not before maxSeconds (100.0 s): "
            + "expected every process to join before the run ends");
    fails(scenario(SERVER, "{\"host\":\"q.test\",\"requests\":10,\"processes\":2,\"joinEverySeconds\":30,"
        + "\"joinAtSeconds\":[0, 30]}", "[\"seed\"]"), "clients[0].joinAtSeconds",
        "expected joinEverySeconds or joinAtSeconds, not both");
    fails(scenario(SERVER, "{\"host\":\"q.test\",\"requests\":10,\"joinEvery\":30}", "[\"seed\"]"),
        "clients[0].joinEvery", "unknown field of a client: expected one of arrival, fleetLatencyMs, host, inFlight, "
            + "joinAtSeconds, joinEverySeconds, limits, processes, requests, sharedState");
  }

  @Test
  void eachFieldAtFaultIsNamed() {
    fails("[1]", "", "scenario: expected a JSON object {\"servers\": [...], \"clients\": [...], \"policies\": [...]}");
    fails(scenario(SERVER, CLIENT, "[\"seed\"]").replace("\"servers\"", "\"server\""), "server",
        "unknown field of a pacing scenario: expected one of clients, maxSeconds, policies, runs, seed, servers");
    fails(scenario(SERVER, CLIENT, "[\"seed\"]").replaceFirst("\\{", "{\"runs\":0,"), "runs", "expected 1 to 10 runs, got 0");
    fails(scenario(SERVER, CLIENT, "[\"seed\"]").replaceFirst("\\{", "{\"runs\":1.5,"), "runs", "expected a whole number, got 1.5");
    fails(scenario(SERVER, CLIENT, "[\"seed\",\"aimd\"]"), "policies[1]",
        "expected \"seed\", \"hostpace\", \"burst\", \"configured\" or \"unpaced\", got \"aimd\"");
    fails(scenario(SERVER, CLIENT, "[]"), "policies", "expected at least one of \"seed\", \"hostpace\", \"burst\", \"configured\", \"unpaced\"");
  }

  /** A server's field at fault, in a scenario of that server, one client of it and the seed's policy. */
  @ParameterizedTest(name = "{1}: {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      {"host":"q.test","model":"token-bucket"}                                  | servers[0].rate          | required: requests a second the bucket refills, such as 1.0
      {"host":"q.test","model":"token-bucket","rate":-1}                        | servers[0].rate          | expected a positive number (at most 1000000), got -1
      {"host":"q.test","model":"gate","maxConcurrent":4,"rate":1}               | servers[0].rate          | not a field of model "gate"
      {"host":"q.test","model":"gate","maxConcurrent":4,"retryAfter":"later"}   | servers[0].retryAfter    | expected "none", "seconds", "date" or "until-free", got "later"
      {"host":"q.test","model":"gate","maxConcurrent":4,"announces":true}       | servers[0].announces     | a gate counts no quota to announce: token-bucket or fixed-window only
      {"host":"q.test","model":"token-bucket","rate":1.0,"changes":[{"atSeconds":10}]} | servers[0].changes[0] | a change must set one of rate, burst (token-bucket), limit (fixed-window), maxConcurrent (gate)
      {"host":"q.test","model":"token-bucket","rate":1.0,"latencyJitterMs":-1}      | servers[0].latencyJitterMs | expected a number of ms of 0 or more, got -1
      {"host":"q.test","model":"token-bucket","rate":1.0,"latencyJitterMs":"30ms"}  | servers[0].latencyJitterMs | expected a number of ms of 0 or more, got "30ms"
      {"host":"q.test","model":"token-bucket","rate":1.0,"latencyJitterMs":2e9}     | servers[0].latencyJitterMs | expected a number of ms of 0 or more, got 2.0E9
      {"host":"q.test","model":"token-bucket","rate":1.0,"windowsFromSeconds":5}    | servers[0].windowsFromSeconds | not a field of model "token-bucket"
      {"host":"q.test","model":"fixed-window","limit":60,"windowSeconds":60,"windowsFromSeconds":-5} | servers[0].windowsFromSeconds | expected a number of seconds of 0 or more (at most 10000000), got -5
      {"host":"q.test","model":"token-bucket","rate":1.0,"status":200}          | servers[0].status        | expected a refusal's HTTP status from 400 to 599, got 200
      {"host":"q.test","model":"token-bucket","rate":1.0,"status":399}          | servers[0].status        | expected a refusal's HTTP status from 400 to 599, got 399
      {"host":"q.test","model":"token-bucket","rate":1.0,"status":600}          | servers[0].status        | expected a refusal's HTTP status from 400 to 599, got 600
      {"host":"q.test","model":"token-bucket","rate":1.0,"status":-1}           | servers[0].status        | expected a refusal's HTTP status from 400 to 599, got -1
      {"host":"q.test","model":"token-bucket","rate":1.0,"status":429.5}        | servers[0].status        | expected a whole number, got 429.5
      {"host":"q.test","model":"gate","maxConcurrent":1,"latencyMs":0}          | servers[0].latencyMs     | a gate holds each accepted request's place for its latency: expected more than 0 ms, got 0
      {"host":"q.test","model":"gate","maxConcurrent":1,"latencyMs":1e-7}       | servers[0].latencyMs     | a gate holds each accepted request's place for its latency: expected more than 0 ms, got 1.0E-7
      {"host":"q.test","model":"token-bucket","rate":1.0,"latencyJitter":30}        | servers[0].latencyJitter | unknown field of a server: expected one of announces, burst, changes, host, latencyJitterMs, latencyMs, limit, maxConcurrent, model, rate, refusalsCount, retryAfter, status, windowSeconds, windowsFromSeconds
      """)
  void aServersFieldAtFaultIsNamed(String server, String field, String message) {
    fails(scenario(server, CLIENT, "[\"seed\"]"), field, message);
  }

  @Test
  void aLimitPolicyConfiguredCannotTellTheEngineIsNamedByTheServersField() {
    // a million a day is more permits than the engine keeps in one rate's interval
    fails(scenario("{\"host\":\"q.test\",\"model\":\"fixed-window\",\"limit\":1000000,\"windowSeconds\":86400}", CLIENT,
        "[\"hostpace\",\"configured\"]"), "servers[0].limit", "policy \"configured\" tells the engine this limit, which it"
        + " refuses: rate permits must be at most 100000, got 1000000: give the rate over a shorter interval");
    // one token in 10^11 s is an interval longer than the engine adds to its clock
    fails(scenario("{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1e-11}", CLIENT, "[\"configured\"]"),
        "servers[0].rate", "policy \"configured\" tells the engine this limit, which it refuses: rate interval is too long:"
        + " PT2562047H47M16.854775807S, at most PT1281023H53M38.427387903S");
    // without configured nothing tells the engine the server's limit
    assertThat(PacingScenarioParser.parse(scenario(
        "{\"host\":\"q.test\",\"model\":\"fixed-window\",\"limit\":1000000,\"windowSeconds\":86400}", CLIENT,
        "[\"hostpace\"]")).servers()).hasSize(1);
  }

  @Test
  void aWeeksQuotaOfFiftyThousandIsConfiguredAsItsWindowWithoutOverflow() {
    // 604800 s in nanoseconds times 50000 exceeds a long
    PacingResult.Policy configured = Simulator.PACING.simulate(scenario(
        "{\"host\":\"q.test\",\"model\":\"fixed-window\",\"limit\":50000,\"windowSeconds\":604800}", CLIENT,
        "[\"configured\"]")).policy("configured");
    assertThat(configured.completed()).isEqualTo(10);
    assertThat(configured.refusals()).isZero();
  }

  @Test
  void aWindowOfUnderHalfANanosecondIsNotRoundedToNone() {
    fails(scenario("{\"host\":\"q.test\",\"model\":\"fixed-window\",\"limit\":1,\"windowSeconds\":1e-10}", CLIENT,
        "[\"seed\"]"), "servers[0].windowSeconds",
        "expected a number of seconds above 0 (at most 10000000), got 1.0E-10, which is 0 to the nanosecond");
  }

  /** A client's field at fault, in a scenario of one server of q.test and the seed's policy. */
  @ParameterizedTest(name = "{1}: {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      {"host":"other.test","requests":10}                                       | clients[0].host          | no server has host 'other.test': expected one of q.test
      {"host":"q.test","requests":10,"arrival":"poisson"}                       | clients[0].arrival       | expected "burst" or {"perSecond": 2.0}, got "poisson"
      {"host":"q.test","requests":10,"arrival":{"perSecond":0}}                 | clients[0].arrival.perSecond | expected a positive number (at most 1000000), got 0
      {"host":"q.test","requests":0}                                            | clients[0].requests      | expected a whole number of 1 or more, got 0
      {"host":"q.test","requests":10,"sharedState":"yes"}                       | clients[0].sharedState   | expected true or false, got "yes"
      {"host":"q.test","requests":10,"sharedState":true,"fleetLatencyMs":1}     | clients[0].fleetLatencyMs | expected a fleet or a shared state, not both
      """)
  void aClientsFieldAtFaultIsNamed(String client, String field, String message) {
    fails(scenario(SERVER, client, "[\"seed\"]"), field, message);
  }

}
