package io.hostpace.simulator;

import static io.hostpace.simulator.ScenarioJson.brief;
import static io.hostpace.simulator.ScenarioJson.count;
import static io.hostpace.simulator.ScenarioJson.list;
import static io.hostpace.simulator.ScenarioJson.number;
import static io.hostpace.simulator.ScenarioJson.object;
import static io.hostpace.simulator.ScenarioJson.onlyFields;
import static io.hostpace.simulator.ScenarioJson.required;
import static io.hostpace.simulator.ScenarioJson.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostpace.simulator.TimeoutScenario.Fail;
import io.hostpace.simulator.TimeoutScenario.Failure;
import io.hostpace.simulator.TimeoutScenario.Hang;
import io.hostpace.simulator.TimeoutScenario.Idle;
import io.hostpace.simulator.TimeoutScenario.PolicySpec;
import io.hostpace.simulator.TimeoutScenario.Request;
import io.hostpace.simulator.TimeoutScenario.Stage;
import io.hostpace.timeout.TimeoutPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads a timeout scenario (the format is in {@code scenarios/timeouts/README.md}) and checks
 * every field, so that a bad one is reported by its path: {@code stages[3].requests[0]: expected
 * a number of ms, "hang" or {"fail": ...}}. Unknown fields are refused too, so that a misspelt
 * one ({@code serverLimitMS}) does not pass for a default. {@code //} and {@code /* *}{@code /}
 * comments are allowed. A policy's settings are read by its kind's reader ({@link TimeoutPolicyKinds}).
 */
final class TimeoutScenarioParser {

  private static final Set<String> TOP = Set.of(
      "serverLimitMs", "abortedSlowdown", "maxSlowdown", "retries", "retryBackoffMs", "stages", "policies",
      "probeIdleMs", "outages", "overloads", "description");
  private static final Set<String> STAGE = Set.of("name", "tag", "requests");
  private static final Set<String> FAIL = Set.of("fail", "afterMs");
  private static final Set<String> OUTAGE = Set.of("fromStage", "toStage", "fail", "afterMs");
  private static final Set<String> OVERLOAD = Set.of("fromStage", "toStage", "factor");

  /** The most milliseconds a time may be: a quarter of the nanosecond count's range. */
  private static final double MAX_MS = Long.MAX_VALUE / 1e6 / 4;

  private TimeoutScenarioParser() {}

  private static String tag(JsonNode node, String path) {
    if (!node.isTextual()) {
      throw new ScenarioException(path, "expected a string (\"\" for no kind), got " + ScenarioJson.brief(node));
    }
    return node.asText();
  }

  static TimeoutScenario parse(String text) {
    JsonNode root = ScenarioJson.root(text, "{\"stages\": [...], \"policies\": [...]}", TOP, "a scenario");
    if (root.has("description")) {
      ScenarioJson.text(root.get("description"), "description");
    }

    @Nullable Long serverLimit = root.has("serverLimitMs") ? positiveMs(root.get("serverLimitMs"), "serverLimitMs") : null;
    double abortedSlowdown = root.has("abortedSlowdown") ? number(root.get("abortedSlowdown"), "abortedSlowdown", 0) : 0;
    double maxSlowdown = root.has("maxSlowdown") ? number(root.get("maxSlowdown"), "maxSlowdown", 1) : Double.POSITIVE_INFINITY;
    int retries = root.has("retries") ? count(root.get("retries"), "retries", 0) : 0;
    List<Long> backoff = new ArrayList<>();
    if (root.has("retryBackoffMs")) {
      JsonNode list = root.get("retryBackoffMs");
      if (!list.isArray()) {
        throw new ScenarioException("retryBackoffMs", "expected a list of ms, such as [1000, 2000, 4000]");
      }
      for (int i = 0; i < list.size(); i++) {
        backoff.add(ms(list.get(i), "retryBackoffMs[" + i + "]"));
      }
    }
    long probeIdle = root.has("probeIdleMs") ? ms(root.get("probeIdleMs"), "probeIdleMs") : 50_000_000L;

    List<StageDraft> drafts = stages(required(root, "stages", "", "a list of stages"));
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < drafts.size(); i++) {
      index.put(drafts.get(i).name, i);
    }
    if (root.has("outages")) {
      JsonNode list = list(root.get("outages"), "outages", "a list of outages");
      for (int i = 0; i < list.size(); i++) {
        String path = "outages[" + i + "]";
        JsonNode outage = object(list.get(i), path, "{\"fromStage\": ..., \"toStage\": ..., \"fail\": \"refused\"}");
        onlyFields(outage, path, OUTAGE, "an outage");
        int[] range = range(outage, path, index, drafts);
        Fail fail = new Fail(
            failure(required(outage, "fail", path, "\"refused\", \"reset\", \"dns\" or \"tls\""), path + ".fail"),
            outage.has("afterMs") ? ms(outage.get("afterMs"), path + ".afterMs") : 5_000_000L);
        for (int s = range[0]; s <= range[1]; s++) {
          drafts.get(s).outage = fail;
        }
      }
    }
    if (root.has("overloads")) {
      JsonNode list = list(root.get("overloads"), "overloads", "a list of overloads");
      for (int i = 0; i < list.size(); i++) {
        String path = "overloads[" + i + "]";
        JsonNode overload = object(list.get(i), path, "{\"fromStage\": ..., \"factor\": 250}");
        onlyFields(overload, path, OVERLOAD, "an overload");
        int[] range = range(overload, path, index, drafts);
        double factor = number(required(overload, "factor", path, "a factor of 1 or more"), path + ".factor", 1);
        for (int s = range[0]; s <= range[1]; s++) {
          drafts.get(s).overload *= factor;
        }
      }
    }
    List<Stage> stages = new ArrayList<>();
    for (StageDraft draft : drafts) {
      stages.add(new Stage(draft.name, draft.tag, draft.requests, draft.outage, draft.overload));
    }

    List<PolicySpec> policies = policies(required(root, "policies", "", "a list of policies to replay"));
    return new TimeoutScenario(serverLimit, abortedSlowdown, maxSlowdown, retries, List.copyOf(backoff), probeIdle,
        List.copyOf(stages), policies);
  }

  // ---------------------------------------------------------------- stages

  private static final class StageDraft {
    final String name;
    final String tag;
    final List<Request> requests;
    @Nullable Fail outage;
    double overload = 1;

    StageDraft(String name, String tag, List<Request> requests) {
      this.name = name;
      this.tag = tag;
      this.requests = requests;
    }
  }

  private static List<StageDraft> stages(JsonNode list) {
    list(list, "stages", "a list of stages");
    if (list.isEmpty()) {
      throw new ScenarioException("stages", "expected at least one stage");
    }
    List<StageDraft> stages = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String path = "stages[" + i + "]";
      JsonNode stage = object(list.get(i), path, "{\"name\": ..., \"requests\": [...]}");
      onlyFields(stage, path, STAGE, "a stage");
      String name = text(required(stage, "name", path, "the stage's name"), path + ".name");
      Integer before = seen.putIfAbsent(name, i);
      if (before != null) {
        throw new ScenarioException(path + ".name", "\"" + name + "\" is already the name of stages[" + before + "]");
      }
      // "" is the engine's kind for a caller that gives none: one kind for the endpoint.
      String tag = stage.has("tag") ? tag(stage.get("tag"), path + ".tag") : name;
      JsonNode requests = list(required(stage, "requests", path, "a list of requests"), path + ".requests",
          "a list of requests");
      if (requests.isEmpty()) {
        throw new ScenarioException(path + ".requests", "expected at least one request");
      }
      List<Request> parsed = new ArrayList<>();
      for (int r = 0; r < requests.size(); r++) {
        parsed.add(request(requests.get(r), path + ".requests[" + r + "]"));
      }
      stages.add(new StageDraft(name, tag, List.copyOf(parsed)));
    }
    return stages;
  }

  private static Request request(JsonNode node, String path) {
    if (node.isNumber()) {
      return new Idle(ms(node, path));
    }
    if (node.isTextual() && node.asText().equals("hang")) {
      return new Hang();
    }
    if (node.isObject() && node.has("fail")) {
      onlyFields(node, path, FAIL, "a failing request");
      return new Fail(failure(node.get("fail"), path + ".fail"),
          node.has("afterMs") ? ms(node.get("afterMs"), path + ".afterMs") : 0);
    }
    throw new ScenarioException(path, "expected a number of ms, \"hang\" or {\"fail\": ...}");
  }

  private static Failure failure(JsonNode node, String path) {
    if (node.isTextual()) {
      for (Failure failure : Failure.values()) {
        if (failure.label().equals(node.asText())) {
          return failure;
        }
      }
    }
    throw new ScenarioException(path, "expected \"refused\", \"reset\", \"dns\" or \"tls\", got " + node);
  }

  /** The stages from {@code fromStage} to {@code toStage} (the last, when absent), by index. */
  private static int[] range(JsonNode node, String path, Map<String, Integer> index, List<StageDraft> stages) {
    int from = stage(required(node, "fromStage", path, "the name of the first stage it covers"), path + ".fromStage", index);
    int to = node.has("toStage") ? stage(node.get("toStage"), path + ".toStage", index) : stages.size() - 1;
    if (to < from) {
      throw new ScenarioException(path + ".toStage", "\"" + stages.get(to).name + "\" comes before fromStage \""
          + stages.get(from).name + "\": expected a stage at or after it");
    }
    return new int[] {from, to};
  }

  private static int stage(JsonNode node, String path, Map<String, Integer> index) {
    String name = text(node, path);
    Integer at = index.get(name);
    if (at == null) {
      throw new ScenarioException(path, "no stage is named \"" + name + "\"");
    }
    return at;
  }

  // ---------------------------------------------------------------- policies

  private static List<PolicySpec> policies(JsonNode list) {
    list(list, "policies", "a list of policies to replay");
    if (list.isEmpty()) {
      throw new ScenarioException("policies", "expected at least one policy");
    }
    List<PolicySpec> policies = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String path = "policies[" + i + "]";
      JsonNode policy = object(list.get(i), path, "{\"name\": ..., \"kind\": \"adaptive\", \"defaultMs\": ...}");
      String name = text(required(policy, "name", path, "the policy's name"), path + ".name");
      Integer before = seen.putIfAbsent(name, i);
      if (before != null) {
        throw new ScenarioException(path + ".name", "\"" + name + "\" is already the name of policies[" + before + "]");
      }
      String kind = text(required(policy, "kind", path, TimeoutPolicyKinds.ALL.quotedOr()), path + ".kind");
      Supplier<TimeoutPolicy> factory = TimeoutPolicyKinds.ALL.find(kind).orElseThrow(() -> new ScenarioException(
          path + ".kind", "unknown policy kind \"" + kind + "\": expected " + TimeoutPolicyKinds.ALL.quotedOr()))
          .read(policy, path);
      try {
        // The policy checks its own settings: report them here, by the policy's path.
        TimeoutPolicy unused = factory.get();
      } catch (IllegalArgumentException e) {
        throw new ScenarioException(path, Objects.requireNonNullElse(e.getMessage(), e.toString()));
      }
      policies.add(new PolicySpec(name, factory));
    }
    return List.copyOf(policies);
  }

  // ---------------------------------------------------------------- values

  /** A number of milliseconds, 0 or more, as nanoseconds. */
  static long ms(JsonNode node, String path) {
    return ScenarioJson.ms(node, path, MAX_MS);
  }

  static long positiveMs(JsonNode node, String path) {
    long nanos = node.isNumber() && node.asDouble() > 0 ? ms(node, path) : 0;
    if (nanos <= 0) {
      throw new ScenarioException(path, "expected a positive number of ms, got " + brief(node));
    }
    return nanos;
  }
}
