package io.hostpace;

import io.hostpace.internal.Redaction;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Limits by configured key, as a builder collects them: each key is normalised as it is added
 * ({@link HostKey#limitKey}), so a key that can never match is refused where it was written, and
 * spellings of one key are one entry. One key given the same limits twice is kept once; given
 * different limits, in any spelling ({@code Example.org} and {@code example.org.}, or
 * {@code example.org:80} and {@code example.org:443}), the second is refused, naming both: no
 * limit the caller wrote is silently dropped. Not thread-safe: a builder's.
 *
 * <p>{@code example.org} (every port) and {@code example.org:80} (the default port) are two keys:
 * both may be given, the one with port holding on its port.
 */
final class LimitsByKey {

  /** A key's limits and the spelling they were first given with, for messages. */
  record Given(String spelled, HostKey.LimitKey key, Limits limits) {}

  private final Map<HostKey.LimitKey, Given> byKey = new LinkedHashMap<>();

  LimitsByKey() {}

  /** A copy of {@code other}, to add to without changing it. */
  LimitsByKey(LimitsByKey other) {
    byKey.putAll(other.byKey);
  }

  /** Limits given by literal keys, each of them once: the built-in defaults. */
  static LimitsByKey of(Map<String, Limits> byKey) {
    LimitsByKey limits = new LimitsByKey();
    byKey.forEach(limits::put);
    return limits;
  }

  /**
   * Adds {@code limits} for {@code key}.
   *
   * @throws IllegalArgumentException naming the key when it can never match a request, or when
   *     its key already has other limits
   * @throws NullPointerException naming {@code key} or {@code limits} when it is null
   */
  void put(String key, Limits limits) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(limits, "limits");
    HostKey.LimitKey normalised = HostKey.limitKey(key);
    Given earlier = byKey.get(normalised);
    if (earlier != null && !earlier.limits().equals(limits)) {
      boolean defaultPort = !normalised.everyPort() && HostKey.hostName(normalised.key()).equals(normalised.key());
      String port = defaultPort ? " at ports 80 and 443" : "";
      throw new IllegalArgumentException(Redaction.printable("host limit '" + key + "' " + limits + " is given twice: '"
          + earlier.spelled() + "' has " + earlier.limits() + " already, and both name '" + normalised.key()
          + "'" + port + "; give each host its limits once"));
    }
    if (earlier == null) {
      byKey.put(normalised, new Given(key, normalised, limits));
    }
  }

  boolean isEmpty() {
    return byKey.isEmpty();
  }

  /** The keys and their limits, in the order they were first given. */
  Collection<Given> given() {
    return byKey.values();
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("{");
    for (Given given : byKey.values()) {
      text.append(text.length() > 1 ? ", " : "").append(given.spelled()).append('=').append(given.limits());
    }
    return text.append('}').toString();
  }
}
