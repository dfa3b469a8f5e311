package io.hostpace.simulator;

import static io.hostpace.simulator.ScenarioJson.count;
import static io.hostpace.simulator.ScenarioJson.number;
import static io.hostpace.simulator.ScenarioJson.onlyFields;
import static io.hostpace.simulator.ScenarioJson.required;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The kinds of timeout policy a timeout scenario may name ({@code "kind": "adaptive"}), in the
 * order error messages list them, each with the reader of its settings. A reader checks the
 * policy's fields and returns a maker of fresh policies, one a replay. A new kind is its reader
 * here and its entry in {@link #ALL}.
 */
final class TimeoutPolicyKinds {

  /** A kind and the reader of a policy of that kind at {@code path}. */
  record Kind(String name, BiFunction<JsonNode, String, Supplier<TimeoutPolicy>> reader) {

    Supplier<TimeoutPolicy> read(JsonNode policy, String path) {
      return reader.apply(policy, path);
    }
  }

  static final Registry<Kind> ALL = Registry.of(List.of(
      new Kind("adaptive", TimeoutPolicyKinds::adaptive),
      new Kind("seed", TimeoutPolicyKinds::seed),
      new Kind("fixed", TimeoutPolicyKinds::fixed)), Kind::name);

  private static final Set<String> FIXED = Set.of("name", "kind", "defaultMs");
  private static final Set<String> SEED = Set.of("name", "kind", "defaultMs", "tightenedMs", "tightenAfterTimeouts");
  private static final Set<String> ADAPTIVE = Set.of(
      "name", "kind", "defaultMs", "floorMs", "degradedMs", "margin", "window", "percentile", "failFastAfter",
      "coolDownMs", "maxCoolDownMs", "coolDownRequests", "maxCoolDownRequests", "degradeAfterKinds",
      "decayAfterMs", "decayAfterRequests", "probeMs", "serverLimitMs");

  private TimeoutPolicyKinds() {}

  private static Supplier<TimeoutPolicy> fixed(JsonNode policy, String path) {
    onlyFields(policy, path, FIXED, "a fixed policy");
    Duration budget = duration(required(policy, "defaultMs", path, "the timeout of every attempt"), path + ".defaultMs");
    return () -> TimeoutPolicy.fixed(budget);
  }

  private static Supplier<TimeoutPolicy> seed(JsonNode policy, String path) {
    onlyFields(policy, path, SEED, "a seed policy");
    Duration full = duration(required(policy, "defaultMs", path, "the budget while healthy"), path + ".defaultMs");
    Duration tightened = duration(required(policy, "tightenedMs", path, "the budget once tightened"), path + ".tightenedMs");
    int after = count(required(policy, "tightenAfterTimeouts", path, "the timeouts in a row that tighten it"),
        path + ".tightenAfterTimeouts", 1);
    return () -> TimeoutPolicy.seed(full, tightened, after);
  }

  private static Supplier<TimeoutPolicy> adaptive(JsonNode policy, String path) {
    onlyFields(policy, path, ADAPTIVE, "an adaptive policy");
    AdaptiveTimeouts defaults = AdaptiveTimeouts.defaults();
    AdaptiveTimeouts.Builder builder = AdaptiveTimeouts.builder()
        .defaultBudget(duration(required(policy, "defaultMs", path, "the full budget"), path + ".defaultMs"));
    if (policy.has("floorMs")) {
      builder.floor(duration(policy.get("floorMs"), path + ".floorMs"));
    }
    if (policy.has("degradedMs")) {
      builder.degradedBudget(duration(policy.get("degradedMs"), path + ".degradedMs"));
    }
    if (policy.has("serverLimitMs")) {
      builder.serverLimit(duration(policy.get("serverLimitMs"), path + ".serverLimitMs"));
    }
    if (policy.has("margin")) {
      builder.margin(number(policy.get("margin"), path + ".margin", 1));
    }
    if (policy.has("window")) {
      builder.window(count(policy.get("window"), path + ".window", 1));
    }
    if (policy.has("percentile")) {
      builder.percentile(number(policy.get("percentile"), path + ".percentile", 0));
    }
    if (policy.has("failFastAfter")) {
      builder.failFastAfter(count(policy.get("failFastAfter"), path + ".failFastAfter", 1));
    }
    builder.coolDown(
        policy.has("coolDownMs") ? duration(policy.get("coolDownMs"), path + ".coolDownMs") : defaults.coolDown(),
        policy.has("maxCoolDownMs") ? duration(policy.get("maxCoolDownMs"), path + ".maxCoolDownMs") : defaults.maxCoolDown());
    builder.coolDownRequests(
        policy.has("coolDownRequests") ? count(policy.get("coolDownRequests"), path + ".coolDownRequests", 1)
            : defaults.coolDownRequests(),
        policy.has("maxCoolDownRequests") ? count(policy.get("maxCoolDownRequests"), path + ".maxCoolDownRequests", 1)
            : defaults.maxCoolDownRequests());
    if (policy.has("degradeAfterKinds")) {
      builder.degradeAfterKinds(count(policy.get("degradeAfterKinds"), path + ".degradeAfterKinds", 1));
    }
    builder.decayAfter(
        policy.has("decayAfterMs") ? duration(policy.get("decayAfterMs"), path + ".decayAfterMs") : defaults.decayAfter(),
        policy.has("decayAfterRequests") ? count(policy.get("decayAfterRequests"), path + ".decayAfterRequests", 1)
            : defaults.decayAfterRequests());
    if (policy.has("probeMs")) {
      builder.probe(duration(policy.get("probeMs"), path + ".probeMs"));
    }
    return () -> TimeoutPolicy.adaptive(builder.build());
  }

  private static Duration duration(JsonNode node, String path) {
    return Duration.ofNanos(TimeoutScenarioParser.positiveMs(node, path));
  }
}
