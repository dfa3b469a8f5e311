package io.hostpace;

import io.hostpace.internal.Redaction;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.FailureLog;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The engine's log, on the {@code System.Logger} named {@code io.hostpace.Hostpace}: each decision
 * event at {@code DEBUG}, one line that starts with its host or group key, and each exception or
 * {@code Error} a listener, the learning rule, the timeout policy or the fleet threw at {@code WARNING}, with the
 * exception, at most once a minute per class that threw, method of a fleet's and kind of exception
 * ({@link FailureLog}), so a listener that throws at every event cannot flood the log. The outbox
 * asks {@link #decisions()} before it builds or logs an event, so with {@code DEBUG} off no line is
 * built.
 */
final class EventLog {

  private final System.Logger logger;
  private final FailureLog failures;

  EventLog(System.Logger logger, Clock clock) {
    this.logger = logger;
    this.failures = new FailureLog(logger, clock, FailureLog.DEFAULT_INTERVAL);
  }

  /** The engine's logger, {@code io.hostpace.Hostpace}. */
  static System.Logger systemLogger() {
    return System.getLogger(Hostpace.class.getName());
  }

  /** Whether decisions are logged: {@code DEBUG} is on. */
  boolean decisions() {
    return logger.isLoggable(Level.DEBUG);
  }

  /** Logs {@code event} at {@code DEBUG}; the caller checked {@link #decisions()}. */
  void decided(HostpaceEvent event) {
    logger.log(Level.DEBUG, line(event));
  }

  /** {@code listener} threw {@code failure}, which the engine caught and went on. */
  void listenerThrew(Object listener, Throwable failure) {
    threw("listener", listener, "", failure, "the engine ignored it and went on");
  }

  /**
   * {@code rule}, the engine's learning rule, threw {@code failure} when told of an answer: the
   * answer changed nothing the rule sets, and its request went on as the answer said.
   */
  void ruleThrew(Object rule, Throwable failure) {
    threw("learning rule", rule, "", failure, "the host's pace and limits stayed as they were");
  }

  /**
   * {@code policy}, the engine's timeout policy, threw {@code failure}; {@code wentOn} says what
   * the attempt did without its answer.
   */
  void policyThrew(Object policy, Throwable failure, String wentOn) {
    threw("timeout policy", policy, "", failure, wentOn);
  }

  /**
   * {@code probe}, the probe the engine was given (SPEC D6), threw {@code failure} building a probe's
   * exchange; {@code wentOn} says what the prober took in its place.
   */
  void probeThrew(Object probe, Throwable failure, String wentOn) {
    threw("probe", probe, " from exchange", failure, wentOn);
  }

  /**
   * {@code fleet}, the engine's fleet, threw {@code failure} from its method {@code method};
   * {@code wentOn} says what the engine took in its place ({@link GuardedFleet}).
   */
  void fleetThrew(Object fleet, String method, Throwable failure, String wentOn) {
    threw("fleet", fleet, " from " + method, failure, wentOn);
  }

  /**
   * A call of {@code exchange} threw {@code failure} {@code where} (" from abort", " as its attempt
   * ended"), which no caller would see: an {@code Error} the exchange threw where an exception is
   * taken in silence, or the engine's own fault where nothing else caught it. The engine went on as
   * {@code wentOn} says.
   */
  void exchangeThrew(Object exchange, String where, Throwable failure, String wentOn) {
    threw("exchange", exchange, where, failure, wentOn);
  }

  /**
   * Lets {@code exchange}'s {@code response} go, whatever that throws: an exception is routine (a
   * broken connection) and not said; anything else, an {@code Error} (an assertion in a test's
   * exchange), is logged, the engine having gone on as {@code wentOn} says (SPEC L2).
   */
  <R> void discard(Exchange<R> exchange, R response, String wentOn) {
    try {
      exchange.discard(response);
    } catch (RuntimeException e) {
      // letting a response go must not stop what waits for it
    } catch (Throwable e) {
      exchangeThrew(exchange, " from discard", e, wentOn);
    }
  }

  /**
   * Code the engine was given ({@code what}: a listener, a rule) threw {@code failure}, from the
   * method {@code from} names ({@code " from tell"}, a kind of its own; empty for the one it has);
   * the engine went on as {@code wentOn} says.
   */
  private void threw(String what, Object given, String from, Throwable failure, String wentOn) {
    String kind = given.getClass().getName() + from + " " + failure.getClass().getName();
    failures.failed(kind, () -> what + " " + given.getClass().getName() + " threw "
        + failure.getClass().getName() + from + "; " + wentOn, failure);
  }

  /** What {@code event} decided, as one line that starts with its key: {@code a.test: attempt 1 of http://a.test/ refused with 429}. */
  static String line(HostpaceEvent event) {
    String what;
    if (event instanceof HostpaceEvent.Queued queued) {
      what = "attempt " + queued.attempt() + " of " + uri(queued.uri()) + " queued";
    } else if (event instanceof HostpaceEvent.Started started) {
      what = "attempt " + started.attempt() + " of " + uri(started.uri()) + " started after waiting "
          + Durations.text(started.waited());
    } else if (event instanceof HostpaceEvent.Refused refused) {
      Duration retryAfter = refused.retryAfter();
      what = "attempt " + refused.attempt() + " of " + uri(refused.uri()) + " refused with " + refused.status()
          + (retryAfter == null ? ", no Retry-After" : ", Retry-After " + Durations.text(retryAfter));
    } else if (event instanceof HostpaceEvent.Paused paused) {
      what = "paused: starts nothing for " + Durations.text(paused.pause());
    } else if (event instanceof HostpaceEvent.IntervalChanged interval) {
      what = "interval between starts " + Durations.text(interval.from()) + " -> " + Durations.text(interval.to());
    } else if (event instanceof HostpaceEvent.InFlightLimitChanged limit) {
      what = "in-flight limit " + limit(limit.from()) + " -> " + limit(limit.to());
    } else if (event instanceof HostpaceEvent.QuotaChanged quota) {
      what = "quota " + quota(quota.from()) + " -> " + quota(quota.to());
    } else if (event instanceof HostpaceEvent.Retried retried) {
      what = "attempt " + retried.attempt() + " of " + uri(retried.uri()) + " queued again after "
          + Durations.text(retried.delay());
    } else if (event instanceof HostpaceEvent.GaveUp gaveUp) {
      what = "gave up on " + uri(gaveUp.uri()) + " after " + gaveUp.attempts() + " attempts, last refused with "
          + gaveUp.status() + ": " + gaveUp.reason();
    } else {
      what = event.toString();
    }
    return event.key() + ": " + what;
  }

  private static String uri(java.net.URI uri) {
    return Redaction.userInfo(uri.toString());
  }

  private static String limit(int limit) {
    return limit == 0 ? "none" : Integer.toString(limit);
  }

  private static String quota(@Nullable Rate quota) {
    return quota == null ? "none" : quota.permits() + " per " + Durations.text(quota.per());
  }
}
