package io.hostpace.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What a scenario names and the simulator looks up by that name: the pacing policies
 * ({@link PacingPolicies}), the timeout policies' kinds ({@link TimeoutPolicyKinds}). The names
 * keep the order they are given in, which is the order an error message lists them in.
 */
final class Registry<T> {

  private final Map<String, T> byName = new LinkedHashMap<>();

  private Registry(List<T> values, Function<T, String> nameOf) {
    for (T value : values) {
      if (byName.put(nameOf.apply(value), value) != null) {
        throw new IllegalArgumentException("two entries are named '" + nameOf.apply(value) + "'");
      }
    }
  }

  /** The {@code values} by the name {@code nameOf} gives each; no name twice. */
  static <T> Registry<T> of(List<T> values, Function<T, String> nameOf) {
    return new Registry<>(values, nameOf);
  }

  Optional<T> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The names quoted, comma-separated: {@code "seed", "hostpace", "unpaced"}. */
  String quoted() {
    return byName.keySet().stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(", "));
  }

  /** The names quoted, the last after "or": {@code "seed", "hostpace" or "unpaced"}. */
  String quotedOr() {
    List<String> quoted = byName.keySet().stream().map(n -> "\"" + n + "\"").toList();
    if (quoted.size() < 2) {
      return String.join("", quoted);
    }
    return String.join(", ", quoted.subList(0, quoted.size() - 1)) + " or " + quoted.get(quoted.size() - 1);
  }
}
