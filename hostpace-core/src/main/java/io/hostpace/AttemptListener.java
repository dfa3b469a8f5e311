package io.hostpace;

import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * Hears the attempts of the calls whose context carries it (SPEC A1): when an attempt leaves
 * its queue, when its answer arrives or it fails, and when its response is let go for another
 * attempt. A caller can time the server alone this way: from {@code sent} to {@code settled}.
 *
 * <p>Methods are called on whatever thread moves the call on, and must return quickly. An
 * exception thrown here is caught and logged at {@code WARNING} on the {@code System.Logger}
 * {@code io.hostpace.Hostpace} (at most once a minute per listener and kind of exception); it
 * cannot break the call.
 */
public interface AttemptListener {

  /** A listener that hears nothing. */
  AttemptListener NONE = new AttemptListener() {};

  /** Attempt {@code attempt} (1 for the first) of the call to {@code uri} left its queue. */
  default void sent(URI uri, int attempt) {}

  /**
   * The attempt's answer arrived with {@code status}, or it failed with {@code failure}
   * (then {@code status} is -1).
   */
  default void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {}

  /** The attempt's response is let go; the call goes back to its queue for attempt {@code attempt + 1}. */
  default void retrying(URI uri, int attempt) {}
}
