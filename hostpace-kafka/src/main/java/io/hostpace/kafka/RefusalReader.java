package io.hostpace.kafka;

import io.hostpace.internal.AnnouncedQuota;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Finds a refusal in an exception's cause chain. Spring's web and WebFlux clients are looked
 * for only when their classes are present: each is read by a class of its own
 * ({@link SpringWebRefusals}, {@link WebFluxRefusals}) that is loaded only then, so this module
 * runs with either, both or neither on the class path.
 */
final class RefusalReader {

  /**
   * A refusal found: its status, its {@code Retry-After} as sent (null when none), its headers
   * (for an announced quota), and {@code declared} for a {@link Refusal}.
   */
  record Found(int status, @Nullable String retryAfter, AnnouncedQuota.Headers headers, boolean declared) {}

  /** Deeper than any real chain of wrappers; a guard against a pathological one. */
  private static final int MAX_DEPTH = 64;

  private static final boolean SPRING_WEB = present("org.springframework.web.client.RestClientResponseException");
  private static final boolean WEBFLUX =
      present("org.springframework.web.reactive.function.client.WebClientResponseException");

  private RefusalReader() {}

  /**
   * The first refusal in {@code exception}'s cause chain, outermost first: listener wrappers
   * such as {@code ListenerExecutionFailedException} hold the client's exception as a cause.
   */
  static @Nullable Found find(@Nullable Throwable exception) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable current = exception;
    for (int depth = 0; current != null && depth < MAX_DEPTH && seen.add(current); depth++) {
      Found found = read(current);
      if (found != null) {
        return found;
      }
      current = current.getCause();
    }
    return null;
  }

  private static @Nullable Found read(Throwable throwable) {
    if (throwable instanceof Refusal refusal) {
      return new Found(refusal.status(), present(refusal.retryAfter()), name -> present(refusal.header(name)), true);
    }
    if (SPRING_WEB) {
      Found found = SpringWebRefusals.read(throwable);
      if (found != null) {
        return found;
      }
    }
    if (WEBFLUX) {
      return WebFluxRefusals.read(throwable);
    }
    return null;
  }

  /**
   * The value of a header a {@link Refusal} of the application's own gave; null for none, as for
   * an empty optional when it gave null in its place, which its contract does not allow but which
   * would otherwise fail on the consumer thread.
   */
  private static @Nullable String present(@Nullable Optional<String> header) {
    return header == null ? null : header.orElse(null);
  }

  static boolean springWebPresent() {
    return SPRING_WEB;
  }

  static boolean webFluxPresent() {
    return WEBFLUX;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, RefusalReader.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
