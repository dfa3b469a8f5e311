package io.hostpace;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the builders of {@link Hostpace} and {@link CallContext} both collect, checked alike: the
 * limits of every host, the limits by key and a retry count (null while unset). Each builder's
 * setters say what the values mean for it and hand them here. Not thread-safe: a builder's.
 */
final class LimitsAndRetries {
  private Limits everyHost = Limits.NONE;
  private LimitsByKey byKey = new LimitsByKey();
  private @Nullable Integer retries;

  LimitsAndRetries() {}

  /** A copy of {@code table}'s limits and of {@code retries}, to add to without changing them. */
  LimitsAndRetries(LimitTable table, @Nullable Integer retries) {
    this.everyHost = table.everyHost();
    this.byKey = new LimitsByKey(table.byKey());
    this.retries = retries;
  }

  void everyHost(Limits everyHost) {
    this.everyHost = Objects.requireNonNull(everyHost, "everyHost");
  }

  void add(String key, Limits limits) {
    byKey.put(key, limits); // fails here, where the caller wrote the bad key
  }

  void add(String key, String limits) {
    add(key, LimitsParser.forKey(key, limits));
  }

  void retries(int retries) {
    if (retries < 0) {
      throw new IllegalArgumentException("retries must be zero or more, got " + retries);
    }
    this.retries = retries;
  }

  LimitTable table() {
    return LimitTable.of(everyHost, byKey);
  }

  @Nullable Integer retries() {
    return retries;
  }

  int retriesOr(int unset) {
    return retries == null ? unset : retries;
  }
}
