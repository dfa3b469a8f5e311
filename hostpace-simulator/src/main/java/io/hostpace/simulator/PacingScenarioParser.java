package io.hostpace.simulator;

import static io.hostpace.simulator.ScenarioJson.brief;
import static io.hostpace.simulator.ScenarioJson.count;
import static io.hostpace.simulator.ScenarioJson.flag;
import static io.hostpace.simulator.ScenarioJson.list;
import static io.hostpace.simulator.ScenarioJson.object;
import static io.hostpace.simulator.ScenarioJson.onlyFields;
import static io.hostpace.simulator.ScenarioJson.positive;
import static io.hostpace.simulator.ScenarioJson.required;
import static io.hostpace.simulator.ScenarioJson.seconds;
import static io.hostpace.simulator.ScenarioJson.text;
import static io.hostpace.simulator.ScenarioJson.whole;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostpace.Limits;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.Model;
import io.hostpace.simulator.PacingScenario.RetryAfter;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.testing.RefusingServer.Step;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads a pacing scenario (the format in {@code scenarios/pacing/README.md}) and
 * checks every field, so that a bad one is reported by its path: {@code servers[0].model: expected
 * "token-bucket", "fixed-window" or "gate", got "bucket"}. Unknown fields are refused, so a
 * misspelt one does not pass for a default; {@code //} comments are allowed.
 */
final class PacingScenarioParser {

  private static final Set<String> TOP = Set.of("seed", "maxSeconds", "runs", "servers", "clients", "policies");
  private static final Set<String> SERVER = Set.of(
      "host", "model", "rate", "burst", "limit", "windowSeconds", "windowsFromSeconds", "maxConcurrent", "status", "retryAfter",
      "latencyMs", "latencyJitterMs", "refusalsCount", "announces", "changes");
  private static final Set<String> CHANGE = Set.of("atSeconds", "rate", "burst", "limit", "maxConcurrent");
  private static final Set<String> CLIENT = Set.of(
      "host", "requests", "arrival", "inFlight", "processes", "sharedState", "fleetLatencyMs", "joinEverySeconds",
      "joinAtSeconds", "limits");
  private static final Set<String> ARRIVAL = Set.of("perSecond");

  static final int MAX_RUNS = 10;
  /** The most milliseconds a latency may be: about eleven days. */
  private static final double MAX_MS = 1e9;

  private PacingScenarioParser() {}

  static PacingScenario parse(String text) {
    JsonNode root = ScenarioJson.root(
        text, "{\"servers\": [...], \"clients\": [...], \"policies\": [...]}", TOP, "a pacing scenario");
    long seed = root.has("seed") ? whole(root.get("seed"), "seed") : 1;
    long max = root.has("maxSeconds") ? seconds(root.get("maxSeconds"), "maxSeconds", true) : 3_600_000_000_000L;
    long runs = root.has("runs") ? whole(root.get("runs"), "runs") : 1;
    if (runs < 1 || runs > MAX_RUNS) {
      throw new ScenarioException("runs", "expected 1 to " + MAX_RUNS + " runs, got " + runs);
    }

    JsonNode servers = list(required(root, "servers", "", "a list of servers"), "servers", "a list of servers");
    if (servers.isEmpty()) {
      throw new ScenarioException("servers", "expected at least one server");
    }
    List<ServerSpec> serverSpecs = new ArrayList<>();
    Set<String> hosts = new HashSet<>();
    for (int i = 0; i < servers.size(); i++) {
      ServerSpec server = server(servers.get(i), "servers[" + i + "]");
      if (!hosts.add(server.host())) {
        throw new ScenarioException("servers[" + i + "].host", "host '" + server.host() + "' has a server already");
      }
      serverSpecs.add(server);
    }

    JsonNode clients = list(required(root, "clients", "", "a list of clients"), "clients", "a list of clients");
    if (clients.isEmpty()) {
      throw new ScenarioException("clients", "expected at least one client");
    }
    List<ClientSpec> clientSpecs = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      String path = "clients[" + i + "]";
      ClientSpec client = client(clients.get(i), path);
      for (int p = 0; p < client.processes(); p++) {
        if (client.joinOf(p) >= max) {
          throw new ScenarioException(path + (clients.get(i).has("joinAtSeconds") ? ".joinAtSeconds[" + p + "]" : ".joinEverySeconds"),
              "process " + p + " would join at " + client.joinOf(p) / 1e9 + " s, not before maxSeconds (" + max / 1e9
              + " s): expected every process to join before the run ends");
        }
      }
      if (!hosts.contains(client.host())) {
        throw new ScenarioException(path + ".host", "no server has host '" + client.host() + "': expected one of "
            + String.join(", ", serverSpecs.stream().map(ServerSpec::host).toList()));
      }
      clientSpecs.add(client);
    }

    JsonNode policies = list(required(root, "policies", "", "a list of policies"), "policies", "a list of policies");
    if (policies.isEmpty()) {
      throw new ScenarioException("policies", "expected at least one of " + PacingPolicies.ALL.quoted());
    }
    List<PacingPolicy> policySpecs = new ArrayList<>();
    for (int i = 0; i < policies.size(); i++) {
      String path = "policies[" + i + "]";
      JsonNode named = policies.get(i);
      PacingPolicy policy = PacingPolicies.ALL.find(text(named, path)).orElseThrow(() -> new ScenarioException(
          path, "expected " + PacingPolicies.ALL.quotedOr() + ", got " + brief(named)));
      if (policySpecs.contains(policy)) {
        throw new ScenarioException(path, "policy \"" + policy.name() + "\" is named twice");
      }
      policySpecs.add(policy);
    }
    for (int i = 0; i < clientSpecs.size(); i++) {
      ClientSpec client = clientSpecs.get(i);
      int server = serverSpecs.stream().map(ServerSpec::host).toList().indexOf(client.host());
      for (PacingPolicy policy : policySpecs) {
        policy.check(serverSpecs.get(server), client, client.fleetLatency() >= 0, "servers[" + server + "]");
      }
    }
    return new PacingScenario(seed, max, (int) runs, List.copyOf(serverSpecs), List.copyOf(clientSpecs),
        List.copyOf(policySpecs));
  }

  private static ServerSpec server(JsonNode node, String path) {
    object(node, path, "{\"host\": \"qlever.test\", \"model\": \"token-bucket\", ...}");
    onlyFields(node, path, SERVER, "a server");
    String host = host(required(node, "host", path, "the host it serves, such as \"qlever.test\""), path + ".host");
    String modelName = text(required(node, "model", path, "\"token-bucket\", \"fixed-window\" or \"gate\""), path + ".model");
    Model model = switch (modelName) {
      case "token-bucket" -> Model.TOKEN_BUCKET;
      case "fixed-window" -> Model.FIXED_WINDOW;
      case "gate" -> Model.GATE;
      default -> throw new ScenarioException(path + ".model",
          "expected \"token-bucket\", \"fixed-window\" or \"gate\", got " + brief(node.get("model")));
    };
    double rate = 0;
    int burst = 1;
    int limit = 0;
    long window = 0;
    long windowsFrom = 0;
    int maxConcurrent = 0;
    switch (model) {
      case TOKEN_BUCKET -> {
        rate = positive(required(node, "rate", path, "requests a second the bucket refills, such as 1.0"), path + ".rate");
        burst = node.has("burst") ? count(node.get("burst"), path + ".burst", 1) : 1;
      }
      case FIXED_WINDOW -> {
        limit = count(required(node, "limit", path, "requests a window accepts, such as 60"), path + ".limit", 1);
        window = seconds(required(node, "windowSeconds", path, "the window's length, such as 60"), path + ".windowSeconds", true);
        if (node.has("windowsFromSeconds")) {
          windowsFrom = seconds(node.get("windowsFromSeconds"), path + ".windowsFromSeconds", false);
        }
      }
      case GATE -> maxConcurrent = count(
          required(node, "maxConcurrent", path, "how many it serves at once, such as 4"), path + ".maxConcurrent", 1);
    }
    for (String field : List.of("rate", "burst", "limit", "windowSeconds", "windowsFromSeconds", "maxConcurrent")) {
      boolean belongs = switch (model) {
        case TOKEN_BUCKET -> field.equals("rate") || field.equals("burst");
        case FIXED_WINDOW -> field.equals("limit") || field.equals("windowSeconds") || field.equals("windowsFromSeconds");
        case GATE -> field.equals("maxConcurrent");
      };
      if (node.has(field) && !belongs) {
        throw new ScenarioException(path + "." + field, "not a field of model \"" + modelName + "\"");
      }
    }
    long status = node.has("status") ? whole(node.get("status"), path + ".status") : 429;
    if (status < 400 || status > 599) {
      // a 2xx or 3xx would pass for an accepted answer: a refusal is a client or server error
      throw new ScenarioException(path + ".status", "expected a refusal's HTTP status from 400 to 599, got " + status);
    }
    RetryAfter retryAfter = RetryAfter.NONE;
    if (node.has("retryAfter")) {
      retryAfter = switch (text(node.get("retryAfter"), path + ".retryAfter")) {
        case "none" -> RetryAfter.NONE;
        case "seconds" -> RetryAfter.SECONDS;
        case "date" -> RetryAfter.DATE;
        case "until-free" -> RetryAfter.UNTIL_FREE;
        default -> throw new ScenarioException(path + ".retryAfter",
            "expected \"none\", \"seconds\", \"date\" or \"until-free\", got " + brief(node.get("retryAfter")));
      };
    }
    long latency = node.has("latencyMs") ? ms(node.get("latencyMs"), path + ".latencyMs") : 50_000_000L;
    if (model == Model.GATE && latency == 0) {
      // a gate's place is held for the latency: held for none, it would never be full
      throw new ScenarioException(path + ".latencyMs", "a gate holds each accepted request's place for its latency:"
          + " expected more than 0 ms, got " + brief(node.get("latencyMs")));
    }
    long jitter = node.has("latencyJitterMs") ? ms(node.get("latencyJitterMs"), path + ".latencyJitterMs") : 0;
    boolean refusalsCount = flag(node, "refusalsCount", path);
    boolean announces = flag(node, "announces", path);
    if (announces && model == Model.GATE) {
      throw new ScenarioException(path + ".announces", "a gate counts no quota to announce: token-bucket or fixed-window only");
    }
    List<Step> changes = new ArrayList<>();
    if (node.has("changes")) {
      JsonNode list = list(node.get("changes"), path + ".changes", "a list of changes");
      long previous = -1;
      for (int i = 0; i < list.size(); i++) {
        String at = path + ".changes[" + i + "]";
        JsonNode change = object(list.get(i), at, "{\"atSeconds\": 300, \"rate\": 0.5}");
        onlyFields(change, at, CHANGE, "a change");
        long when = seconds(required(change, "atSeconds", at, "when it happens, in seconds from the start"), at + ".atSeconds", false);
        if (when < previous) {
          throw new ScenarioException(at + ".atSeconds", "changes must come in time order");
        }
        previous = when;
        @Nullable Double newRate = null;
        @Nullable Integer newBurst = null;
        @Nullable Integer newLimit = null;
        @Nullable Integer newMax = null;
        for (String field : List.of("rate", "burst", "limit", "maxConcurrent")) {
          if (!change.has(field)) {
            continue;
          }
          boolean belongs = switch (model) {
            case TOKEN_BUCKET -> field.equals("rate") || field.equals("burst");
            case FIXED_WINDOW -> field.equals("limit");
            case GATE -> field.equals("maxConcurrent");
          };
          if (!belongs) {
            throw new ScenarioException(at + "." + field, "not a field of model \"" + modelName + "\"");
          }
          switch (field) {
            case "rate" -> newRate = positive(change.get(field), at + ".rate");
            case "burst" -> newBurst = count(change.get(field), at + ".burst", 1);
            case "limit" -> newLimit = count(change.get(field), at + ".limit", 1);
            default -> newMax = count(change.get(field), at + ".maxConcurrent", 1);
          }
        }
        if (newRate == null && newBurst == null && newLimit == null && newMax == null) {
          throw new ScenarioException(at, "a change must set one of rate, burst (token-bucket), limit (fixed-window), maxConcurrent (gate)");
        }
        changes.add(new Step(when, newRate, newBurst, newLimit, newMax));
      }
    }
    return new ServerSpec(host, model, rate, burst, limit, window, windowsFrom, maxConcurrent, (int) status, retryAfter, latency,
        jitter, refusalsCount, announces, List.copyOf(changes));
  }

  private static ClientSpec client(JsonNode node, String path) {
    object(node, path, "{\"host\": \"qlever.test\", \"requests\": 300, \"arrival\": \"burst\"}");
    onlyFields(node, path, CLIENT, "a client");
    String host = host(required(node, "host", path, "the host it calls"), path + ".host");
    int requests = count(required(node, "requests", path, "how many requests it sends, such as 300"), path + ".requests", 1);
    double perSecond = 0;
    if (node.has("arrival")) {
      JsonNode arrival = node.get("arrival");
      if (arrival.isTextual()) {
        if (!arrival.asText().equals("burst")) {
          throw new ScenarioException(path + ".arrival", "expected \"burst\" or {\"perSecond\": 2.0}, got " + brief(arrival));
        }
      } else if (arrival.isObject()) {
        onlyFields(arrival, path + ".arrival", ARRIVAL, "an arrival");
        perSecond = positive(required(arrival, "perSecond", path + ".arrival", "requests arriving a second, such as 2.0"),
            path + ".arrival.perSecond");
      } else {
        throw new ScenarioException(path + ".arrival", "expected \"burst\" or {\"perSecond\": 2.0}, got " + brief(arrival));
      }
    }
    int inFlight = node.has("inFlight") ? count(node.get("inFlight"), path + ".inFlight", 1) : 32;
    int processes = node.has("processes") ? count(node.get("processes"), path + ".processes", 1) : 1;
    if (processes > requests) {
      throw new ScenarioException(path + ".processes", "expected at most as many processes as requests (" + requests + "), got " + processes);
    }
    boolean sharedState = flag(node, "sharedState", path);
    long fleetLatency = node.has("fleetLatencyMs") ? ms(node.get("fleetLatencyMs"), path + ".fleetLatencyMs") : -1;
    if (fleetLatency >= 0 && sharedState) {
      throw new ScenarioException(path + ".fleetLatencyMs", "expected a fleet or a shared state, not both");
    }
    return new ClientSpec(host, requests, perSecond, inFlight, processes, sharedState, fleetLatency,
        joins(node, path, processes), node.has("limits") ? limits(node.get("limits"), path + ".limits") : null);
  }

  /** The limits a client's user gave the host, as {@link Limits#parse(String)} reads them. */
  private static Limits limits(JsonNode node, String path) {
    String spec = text(node, path);
    try {
      return Limits.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new ScenarioException(path, String.valueOf(e.getMessage()));
    }
  }

  /**
   * When each of a client's {@code processes} joins: {@code joinEverySeconds} apart from 0 s (process k
   * at k times it), or at each of {@code joinAtSeconds}, one a process; all at 0 s without either.
   */
  private static List<Long> joins(JsonNode node, String path, int processes) {
    List<Long> joins = new ArrayList<>();
    if (node.has("joinEverySeconds") && node.has("joinAtSeconds")) {
      throw new ScenarioException(path + ".joinAtSeconds", "expected joinEverySeconds or joinAtSeconds, not both");
    }
    if (node.has("joinEverySeconds")) {
      long every = seconds(node.get("joinEverySeconds"), path + ".joinEverySeconds", true);
      if (processes < 2) {
        throw new ScenarioException(path + ".joinEverySeconds",
            "expected processes of 2 or more to join apart, got " + processes + " process");
      }
      for (int p = 0; p < processes; p++) {
        joins.add(every * p);
      }
    } else if (node.has("joinAtSeconds")) {
      JsonNode list = list(node.get("joinAtSeconds"), path + ".joinAtSeconds",
          "a list of seconds, one a process");
      if (list.size() != processes) {
        throw new ScenarioException(path + ".joinAtSeconds",
            "expected one time a process (" + processes + "), got " + list.size());
      }
      for (int p = 0; p < processes; p++) {
        joins.add(seconds(list.get(p), path + ".joinAtSeconds[" + p + "]", false));
      }
    } else {
      for (int p = 0; p < processes; p++) {
        joins.add(0L);
      }
    }
    return joins;
  }

  // ---------------------------------------------------------------- values

  private static String host(JsonNode node, String path) {
    String host = text(node, path);
    if (!host.matches("[A-Za-z0-9.-]+(:[0-9]{1,5})?") || host.startsWith(".") || host.endsWith(".")) {
      throw new ScenarioException(path, "expected a host name such as \"qlever.test\", got " + brief(node));
    }
    return host.toLowerCase(Locale.ROOT);
  }

  private static long ms(JsonNode node, String path) {
    return ScenarioJson.ms(node, path, MAX_MS);
  }
}
