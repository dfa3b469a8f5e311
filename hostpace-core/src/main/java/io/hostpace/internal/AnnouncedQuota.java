package io.hostpace.internal;

import io.hostpace.Clock;
import org.jspecify.annotations.Nullable;

/**
 * Reads the quota a server announces on its answers (SPEC R8): how many requests remain, and when
 * the quota resets. The engine starts no more than remain before the reset, and pauses the host
 * until then when nothing does. Every answer is read, accepted or refused.
 *
 * <p>The forms read, the first present winning:
 * <ol>
 *   <li>{@code RateLimit} of the IETF httpapi draft, as a list of policies with parameters
 *       ({@code "default";r=0;t=30}, draft 07 and later: {@code r} remaining, {@code t} seconds to
 *       the reset; with several policies the longest wait of those with nothing remaining), or as
 *       the dictionary of the earlier drafts ({@code limit=100, remaining=0, reset=30});
 *   <li>{@code RateLimit-Remaining} with {@code RateLimit-Reset} (drafts 00 to 06);
 *   <li>{@code X-RateLimit-Remaining} with {@code X-RateLimit-Reset}, or else
 *       {@code X-RateLimit-Reset-After} (GitHub, Twitter, Discord and many others).
 * </ol>
 * The starts a window are read beside them when given, so that the window after the reset is
 * known before its first answer: {@code limit} of the dictionary, {@code RateLimit-Limit} (its
 * first member, as in {@code 100, 100;w=60}), {@code X-RateLimit-Limit}; or else the quota of
 * {@code RateLimit-Policy}, a list of policies ({@code "burst";q=100;w=60, "daily";q=1000;w=86400}
 * in draft 08 and later, {@code 100;w=60} before). A policy's quota is the one of the same name as
 * the policy {@code RateLimit} reports on; else, of a remaining count given apart, the only policy
 * (of several, nothing tells which). A quota counted in other units than requests ({@code qu})
 * says nothing.
 * A reset is seconds to wait ({@code 30}, {@code 1.5}), or, as many servers send it, the time of
 * the reset: a number of at least 10<sup>9</sup> is a Unix time in seconds, of at least
 * 10<sup>12</sup> one in milliseconds; a time already past means no wait. Anything else (signs,
 * junk, a remaining count that is not a whole number) announces nothing; nothing here throws. The
 * wall clock is read only for a reset given as a time.
 */
public final class AnnouncedQuota {

  /** How an answer's header is read: its first value, or null; the name in any case. */
  @FunctionalInterface
  public interface Headers {
    /** The first value of the header {@code name}, or null when the answer has none. */
    @Nullable String get(String name);
  }

  /**
   * How an answer's header is read from the {@code source} that knows how (an exchange, say) and
   * the {@code answer}: so that a reader that captures neither is made once, not once per answer.
   */
  @FunctionalInterface
  public interface HeaderReader<S, A> {
    /** The first value of the header {@code name} of {@code answer}, or null when it has none. */
    @Nullable String header(S source, A answer, String name);
  }

  private static final HeaderReader<Headers, Headers> BY_NAME = (headers, same, name) -> headers.get(name);

  static final long NONE = -1;
  private static final long MAX_NANOS = 365L * 24 * 3600 * 1_000_000_000L;

  /**
   * An announcement: {@code remaining} requests until the quota resets {@code resetNanos} from
   * now, of {@code limit} a window (-1 when the answer did not say, or said fewer than remain).
   * With several policies, the one that leaves the least (and of those, the longest wait).
   */
  public record Announced(long remaining, long resetNanos, long limit) {
    /** An answer that announces no quota. */
    public static final Announced NOTHING = new Announced(-1, -1);

    /** Checks the limit: one below what remains is none. */
    public Announced {
      if (limit < remaining) {
        limit = -1;
      }
    }

    /** {@code remaining} requests until the reset {@code resetNanos} from now, of a limit not said. */
    public Announced(long remaining, long resetNanos) {
      this(remaining, resetNanos, -1);
    }

    /** Whether the answer announced a quota. */
    public boolean says() {
      return remaining >= 0;
    }

    /** The wait until the reset when nothing remains; empty when something does, or nothing was announced. */
    public java.util.Optional<java.time.Duration> waitWhenSpent() {
      return remaining == 0 ? java.util.Optional.of(java.time.Duration.ofNanos(resetNanos)) : java.util.Optional.empty();
    }

    /** Of this and {@code other}, the one that leaves less (and of equals, the longer wait). */
    Announced tighter(Announced other) {
      if (!other.says()) {
        return this;
      }
      if (!says() || other.remaining < remaining || other.remaining == remaining && other.resetNanos > resetNanos) {
        return other;
      }
      return this;
    }
  }

  private AnnouncedQuota() {}

  /**
   * What an answer announces of its quota; {@link Announced#NOTHING} when it says nothing this
   * class reads. Never throws. {@code now} is read for its wall time only when a reset is given
   * as a time.
   */
  public static Announced read(Headers headers, Clock now) {
    return read(headers, headers, BY_NAME, now);
  }

  /**
   * {@link #read(Headers, Clock)}, the answer's headers read by {@code reader} from {@code source}
   * and {@code answer}.
   */
  public static <S, A> Announced read(S source, A answer, HeaderReader<S, A> reader, Clock now) {
    try {
      String policy = reader.header(source, answer, "RateLimit-Policy");
      String combined = reader.header(source, answer, "RateLimit");
      if (combined != null) {
        return combined.indexOf('=') >= 0 && (combined.contains(";r=") || combined.contains("; r="))
            ? fromPolicies(combined, policy, now)
            : withPolicy(fromDictionary(combined, now), null, policy);
      }
      Announced draft = fromFields(reader.header(source, answer, "RateLimit-Remaining"),
          reader.header(source, answer, "RateLimit-Reset"), now);
      if (draft.says()) {
        return withPolicy(withLimit(draft, firstMember(reader.header(source, answer, "RateLimit-Limit"))), null, policy);
      }
      String reset = reader.header(source, answer, "X-RateLimit-Reset");
      return withPolicy(withLimit(fromFields(reader.header(source, answer, "X-RateLimit-Remaining"),
          reset != null ? reset : reader.header(source, answer, "X-RateLimit-Reset-After"), now),
          reader.header(source, answer, "X-RateLimit-Limit")), null, policy);
    } catch (RuntimeException e) {
      return Announced.NOTHING; // whatever a server sends
    }
  }

  /**
   * {@code "burst";r=0;t=30, "daily";r=5;t=3600}: the policy that leaves the least, of the quota
   * {@code policies} ({@code RateLimit-Policy}) gives the policy of its name.
   */
  private static Announced fromPolicies(String value, @Nullable String policies, Clock now) {
    Announced tightest = Announced.NOTHING;
    String name = null;
    for (String item : splitOutsideQuotes(value)) {
      String remaining = null;
      String reset = null;
      String[] parameters = item.split(";");
      for (int i = 1; i < parameters.length; i++) {
        String[] pair = parameters[i].trim().split("=", 2);
        if (pair.length == 2 && pair[0].trim().equals("r")) {
          remaining = pair[1].trim();
        } else if (pair.length == 2 && pair[0].trim().equals("t")) {
          reset = pair[1].trim();
        }
      }
      Announced announced = fromFields(remaining, reset, now);
      Announced tighter = tightest.tighter(announced);
      if (tighter != tightest) {
        tightest = tighter;
        name = parameters[0].trim();
      }
    }
    return withPolicy(tightest, name, policies);
  }

  /**
   * {@code announced} with the quota of {@code policies} ({@code "default";q=100;w=60} or
   * {@code 100;w=60}, comma separated) as its starts a window, when it said none: the quota of
   * the policy named {@code name}; with no name, of the only policy there is.
   */
  private static Announced withPolicy(Announced announced, @Nullable String name, @Nullable String policies) {
    if (policies == null || !announced.says() || announced.limit() >= 0) {
      return announced;
    }
    String[] items = splitOutsideQuotes(policies);
    for (String item : items) {
      String[] parameters = item.split(";", -1);
      String named = parameters[0].trim();
      if (name != null ? !unquoted(named).equals(unquoted(name)) : items.length > 1) {
        continue;
      }
      String quota = count(named) >= 0 ? named : null; // the earlier drafts' 100;w=60
      for (int i = 1; i < parameters.length; i++) {
        String[] pair = parameters[i].trim().split("=", 2);
        if (pair.length == 2 && pair[0].trim().equals("q")) {
          quota = pair[1].trim();
        } else if (pair.length == 2 && pair[0].trim().equals("qu") && !unquoted(pair[1].trim()).equals("requests")) {
          return announced; // bytes or requests in flight: not starts a window
        }
      }
      return withLimit(announced, quota);
    }
    return announced;
  }

  /** {@code "default"} or {@code default}: default. */
  private static String unquoted(String name) {
    return name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"") ? name.substring(1, name.length() - 1) : name;
  }

  /** The first member of a list ({@code 100, 100;w=60}), without its parameters; null for null. */
  private static @Nullable String firstMember(@Nullable String list) {
    return list == null ? null : splitOutsideQuotes(list)[0].split(";", 2)[0];
  }

  /** {@code limit=100, remaining=0, reset=30}. */
  private static Announced fromDictionary(String value, Clock now) {
    String remaining = null;
    String reset = null;
    String limit = null;
    for (String member : splitOutsideQuotes(value)) {
      String[] pair = member.trim().split("=", 2);
      if (pair.length == 2 && pair[0].trim().equals("remaining")) {
        remaining = pair[1].trim();
      } else if (pair.length == 2 && pair[0].trim().equals("reset")) {
        reset = pair[1].trim();
      } else if (pair.length == 2 && pair[0].trim().equals("limit")) {
        limit = pair[1].trim();
      }
    }
    return withLimit(fromFields(remaining, reset, now), limit);
  }

  /** {@code announced} with the starts a window {@code limit} says, when it says a count; else as it is. */
  private static Announced withLimit(Announced announced, @Nullable String limit) {
    long count = limit == null || !announced.says() ? -1 : count(limit.trim());
    return count < 0 ? announced : new Announced(announced.remaining(), announced.resetNanos(), count);
  }

  private static Announced fromFields(@Nullable String remaining, @Nullable String reset, Clock now) {
    if (remaining == null || reset == null) {
      return Announced.NOTHING;
    }
    long count = count(remaining.trim());
    long resetNanos = count < 0 ? NONE : resetNanos(reset.trim(), now);
    return count < 0 || resetNanos < 0 ? Announced.NOTHING : new Announced(count, resetNanos);
  }

  /** A whole number of requests, digits only (at most a billion); -1 for anything else. */
  private static long count(String count) {
    if (!count.matches("\\d{1,18}")) {
      return -1;
    }
    return Math.min(Long.parseLong(count), 1_000_000_000L);
  }

  /** Seconds to wait, or a Unix time in seconds or milliseconds; NONE for anything else. */
  private static long resetNanos(String reset, Clock now) {
    if (!reset.matches("\\d{1,20}(\\.\\d{1,9})?")) {
      return NONE;
    }
    double value = Double.parseDouble(reset);
    double seconds;
    if (value >= 1e12) {
      seconds = (value - now.instant().toEpochMilli()) / 1e3;
    } else if (value >= 1e9) {
      java.time.Instant at = now.instant();
      seconds = value - at.getEpochSecond() - at.getNano() / 1e9;
    } else {
      seconds = value;
    }
    if (!(seconds > 0)) {
      return 0;
    }
    return seconds * 1e9 >= MAX_NANOS ? MAX_NANOS : Math.round(seconds * 1e9);
  }

  /** The members of a list or dictionary: split on commas that are not inside a quoted string. */
  private static String[] splitOutsideQuotes(String value) {
    java.util.List<String> members = new java.util.ArrayList<>();
    boolean quoted = false;
    int from = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' && (i == 0 || value.charAt(i - 1) != '\\')) {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        members.add(value.substring(from, i));
        from = i + 1;
      }
    }
    members.add(value.substring(from));
    return members.toArray(new String[0]);
  }
}
