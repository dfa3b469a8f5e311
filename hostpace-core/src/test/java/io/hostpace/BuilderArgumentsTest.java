package io.hostpace;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every setter of {@link Hostpace.Builder} and {@link CallContext.Builder} refuses a null where
 * it is called, naming the parameter, and a value out of range, naming the setting: a mistake is
 * seen where it was written, not when the engine first uses the value.
 */
class BuilderArgumentsTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("nulls")
  void aNullIsRefusedAtTheSetterNamingTheParameter(String setter, ThrowingCallable call, String message) {
    assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessage(message);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("outOfRange")
  void aValueOutOfRangeIsRefusedAtTheSetterNamingTheSetting(String setter, ThrowingCallable call, String message) {
    assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  static Stream<Arguments> nulls() {
    return Stream.of(
        // Hostpace.Builder
        row("clock", () -> Hostpace.builder().clock(null), "clock"),
        row("timer", () -> Hostpace.builder().timer(null), "timer"),
        row("time", () -> Hostpace.builder().time(null), "time"),
        row("limits", () -> Hostpace.builder().limitsForEveryHost(null), "everyHost"),
        row("limit(null, Limits)", () -> Hostpace.builder().addLimit(null, Limits.inFlight(1)), "key"),
        row("limit(key, null Limits)", () -> Hostpace.builder().addLimit("x.org", (Limits) null), "limits"),
        row("limit(null, String)", () -> Hostpace.builder().addLimit(null, "inFlight:1"), "key"),
        row("limit(key, null String)", () -> Hostpace.builder().addLimit("x.org", (String) null), "limits"),
        row("retryDelayLimit", () -> Hostpace.builder().retryDelayLimit(null), "retryDelayLimit"),
        row("refusalStatuses(null, set)", () -> Hostpace.builder().refusalStatuses(null, Set.of(405)), "always"),
        row("refusalStatuses(set, null)", () -> Hostpace.builder().refusalStatuses(Set.of(429), null), "withRetryAfter"),
        row("refusalStatuses(a null in always, set)",
            () -> Hostpace.builder().refusalStatuses(withNull(429), Set.of(405)), "always must not contain null"),
        row("refusalStatuses(set, a null in withRetryAfter)",
            () -> Hostpace.builder().refusalStatuses(Set.of(429), withNull(405)), "withRetryAfter must not contain null"),
        row("refusalStatuses(RefusalStatuses)", () -> Hostpace.builder().refusalStatuses(null), "statuses"),
        row("forgetIdleAfter", () -> Hostpace.builder().forgetIdleAfter(null), "idle"),
        row("userAgent", () -> Hostpace.builder().userAgent(null), "userAgent"),
        row("learningRule", () -> Hostpace.builder().learningRule(null), "rule"),
        row("hostStateStore", () -> Hostpace.builder().hostStateStore(null), "store"),
        row("fleet", () -> Hostpace.builder().fleet(null), "fleet"),
        row("timeoutPolicy", () -> Hostpace.builder().timeoutPolicy(null), "policy"),
        row("probe", () -> Hostpace.builder().probe(null), "probe"),
        row("listener", () -> Hostpace.builder().addListener(null), "listener"),
        row("logger", () -> Hostpace.builder().logger(null), "logger"),
        // CallContext.Builder
        row("context kind", () -> CallContext.builder().kind(null), "kind"),
        row("context limits", () -> CallContext.builder().limitsForEveryHost(null), "everyHost"),
        row("context limit(null, Limits)", () -> CallContext.builder().addLimit(null, Limits.inFlight(1)), "key"),
        row("context limit(key, null Limits)", () -> CallContext.builder().addLimit("x.org", (Limits) null), "limits"),
        row("context limit(null, String)", () -> CallContext.builder().addLimit(null, "inFlight:1"), "key"),
        row("context limit(key, null String)", () -> CallContext.builder().addLimit("x.org", (String) null), "limits"),
        row("context retryStatuses", () -> CallContext.builder().retryStatuses(null), "statuses"),
        row("context retryStatuses(a null in the set)",
            () -> CallContext.builder().retryStatuses(withNull(502)), "statuses must not contain null"),
        row("context retryFallbackDelay", () -> CallContext.builder().retryFallbackDelay(null), "delay"),
        row("context attemptListener", () -> CallContext.builder().attemptListener(null), "listener"));
  }

  static Stream<Arguments> outOfRange() {
    return Stream.of(
        // Hostpace.Builder
        row("retries -1", () -> Hostpace.builder().retries(-1), "retries must be zero or more, got -1"),
        row("retryDelayLimit -1 s", () -> Hostpace.builder().retryDelayLimit(Duration.ofSeconds(-1)),
            "retry delay limit must not be negative, got PT-1S"),
        row("retryDelayLimit 366 days", () -> Hostpace.builder().retryDelayLimit(Duration.ofDays(366)),
            "retry delay limit must be at most a year, got PT8784H"),
        row("refusalStatuses always 99", () -> Hostpace.builder().refusalStatuses(Set.of(99), Set.of(405)),
            "refusal status must be an error, 400 to 599, got 99"),
        row("refusalStatuses always 200", () -> Hostpace.builder().refusalStatuses(Set.of(200), Set.of(405)),
            "refusal status must be an error, 400 to 599, got 200"),
        row("refusalStatuses always 399", () -> Hostpace.builder().refusalStatuses(Set.of(399), Set.of(405)),
            "refusal status must be an error, 400 to 599, got 399"),
        row("refusalStatuses withRetryAfter 302", () -> Hostpace.builder().refusalStatuses(Set.of(429), Set.of(302)),
            "refusal status must be an error, 400 to 599, got 302"),
        row("refusalStatuses withRetryAfter 600", () -> Hostpace.builder().refusalStatuses(Set.of(429), Set.of(600)),
            "refusal status must be an error, 400 to 599, got 600"),
        row("forgetIdleAfter -1 s", () -> Hostpace.builder().forgetIdleAfter(Duration.ofSeconds(-1)),
            "forget idle after must not be negative, got PT-1S"),
        row("forgetIdleAfter 366 days", () -> Hostpace.builder().forgetIdleAfter(Duration.ofDays(366)),
            "forget idle after must be at most a year, got PT8784H"),
        row("userAgent blank", () -> Hostpace.builder().userAgent(" "), "user agent must not be blank"),
        row("userAgent with a line break", () -> Hostpace.builder().userAgent("my-app/1.0\r\nX-Injected: yes"),
            "user agent must be printable ASCII, as every client sends a header's value: character 11 is U+000D"),
        row("userAgent not ASCII", () -> Hostpace.builder().userAgent("Café-bot/1.0"),
            "user agent must be printable ASCII, as every client sends a header's value: character 4 is U+00E9"),
        // CallContext.Builder
        row("context kind with a line break", () -> CallContext.builder().kind("a\nb"),
            "kind 'a\\nb' is not a label on one line: expected no control, format or line-separating character"),
        row("context kind with a tab", () -> CallContext.builder().kind("stage\t1"),
            "kind 'stage\\t1' is not a label on one line: expected no control, format or line-separating character"),
        row("context kind with a bidi override", () -> CallContext.builder().kind("abc\u202edef"),
            "kind 'abc\\u202edef' is not a label on one line: expected no control, format or line-separating character"),
        row("context kind with a line separator", () -> CallContext.builder().kind("a\u2028b"),
            "kind 'a\\u2028b' is not a label on one line: expected no control, format or line-separating character"),
        row("context retries -1", () -> CallContext.builder().retries(-1), "retries must be zero or more, got -1"),
        row("context retryStatuses 99", () -> CallContext.builder().retryStatuses(Set.of(99)),
            "retry status must be an error, 400 to 599, got 99"),
        row("context retryStatuses 200", () -> CallContext.builder().retryStatuses(Set.of(200)),
            "retry status must be an error, 400 to 599, got 200"),
        row("context retryStatuses 600", () -> CallContext.builder().retryStatuses(Set.of(600)),
            "retry status must be an error, 400 to 599, got 600"),
        row("context retryFallbackDelay -1 ms", () -> CallContext.builder().retryFallbackDelay(Duration.ofMillis(-1)),
            "retry fallback delay must not be negative, got PT-0.001S"),
        row("context retryFallbackDelay 200,000 days", () -> CallContext.builder().retryFallbackDelay(Duration.ofDays(200_000)),
            "retry fallback delay must be at most a year, got PT4800000H"));
  }

  /** A row: the setter as the test's name says it, the call, and the exception's message. */
  private static Arguments row(String setter, ThrowingCallable call, String message) {
    return Arguments.of(setter, call, message);
  }

  /** A set that holds {@code status} and a null, as a {@link HashSet} may. */
  private static Set<Integer> withNull(int status) {
    Set<Integer> statuses = new HashSet<>();
    statuses.add(status);
    statuses.add(null);
    return statuses;
  }
}
