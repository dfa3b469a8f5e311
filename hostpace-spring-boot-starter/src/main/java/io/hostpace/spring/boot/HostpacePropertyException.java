package io.hostpace.spring.boot;

import org.jspecify.annotations.Nullable;

/**
 * A {@code hostpace.*} property the engine cannot be built with: its message names the key and
 * what is wrong ({@code hostpace.retries: retries must be zero or more, got -1}), and
 * {@link HostpaceFailureAnalyzer} shows it with what to do when it stops the application.
 */
final class HostpacePropertyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String key;
  private final String action;

  HostpacePropertyException(String key, String message, String action, @Nullable Throwable cause) {
    super(message, cause);
    this.key = key;
    this.action = action;
  }

  /** A value of {@code key} that the engine refused, with the engine's {@code reason}. */
  static HostpacePropertyException refused(String key, IllegalArgumentException reason) {
    return new HostpacePropertyException(key, key + ": " + reason.getMessage(),
        "Correct " + key + " in the application's configuration.", reason);
  }

  /** The key at fault. */
  String key() {
    return key;
  }

  /** What the user can do about it. */
  String action() {
    return action;
  }
}
