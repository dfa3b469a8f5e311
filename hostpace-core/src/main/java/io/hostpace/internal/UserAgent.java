package io.hostpace.internal;

import io.hostpace.Hostpace;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The User-Agent rule of every adapter (SPEC U1): a request that names no User-Agent is sent
 * with the engine's ({@link Hostpace#userAgent()}); one that names its own, with any value,
 * keeps it as it is. Each adapter asks with its client's own way of looking up a header and
 * sets what it is given; the rule is written once, here.
 *
 * <pre>{@code
 * String added = UserAgent.toAdd(engine, request.headers()::containsHeader);
 * if (added != null) {
 *   request.headers().set(UserAgent.HEADER, added);
 * }
 * }</pre>
 */
public final class UserAgent {

  /** The header's name. */
  public static final String HEADER = "User-Agent";

  private UserAgent() {}

  /**
   * The User-Agent to add to a request, or null when it names its own; {@code hasHeader} says
   * whether the request has a header of the given name.
   */
  public static @Nullable String toAdd(Hostpace engine, Predicate<String> hasHeader) {
    return hasHeader.test(HEADER) ? null : engine.userAgent();
  }
}
