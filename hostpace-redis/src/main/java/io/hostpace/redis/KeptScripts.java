package io.hostpace.redis;

import io.hostpace.spi.Fleet.Kept;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The two Lua scripts by which a fleet keeps what a host taught (SPEC S3), and the text it is kept
 * as. Times that run out (a pause, a quota's full window) are kept as instants of Redis's own
 * clock ({@code TIME}), so that a process that reads them later, on another machine, reads what
 * is left of them without sharing a clock with the one that kept them.
 *
 * <p>A host's key holds a string of seven fields separated by tabs: the format's version
 * ({@code 1}), the interval in microseconds, the in-flight limit, the quota's starts a window,
 * its window in microseconds, until when its current window is full and until when the host is
 * paused, both in microseconds of Redis's clock ({@code 0} for not). A host that announces its
 * starts a window (SPEC R8) is kept in version {@code 2}, the same seven fields and three more:
 * those starts, the window in microseconds, and when a window of it resets, in microseconds of
 * Redis's clock (a reader past it counts whole windows on). Kept with a lease of {@code keepFor},
 * after which Redis forgets it.
 *
 * <pre>
 * 1	1000000	0	0	0	0	1764650000000000
 * 2	8000	0	0	0	0	1764650000000000	10	5000000	1764650000000000
 * </pre>
 *
 * <p>A value whose version this release does not read (a later release's) reads as nothing kept:
 * the host opens as on first contact rather than misread; the value is overwritten when this
 * process keeps what the host taught it, so in a fleet of two releases the last to keep stands.
 * A rejoin's {@link #RECALL_OR_KEEP} that finds such a value answers it, and {@link RedisFleet}
 * reads that as nothing kept too: the process goes on from what it offered, as if first to rejoin.
 * So that an earlier release reads what it can, a host that announces no starts a window is kept
 * in version 1.
 */
final class KeptScripts {

  /** The version of the kept text this release writes for a host that announces no starts a window. */
  static final String VERSION = "1";
  /** The version of the kept text, with an announced quota (SPEC R8), this release writes and reads. */
  static final String ANNOUNCED_VERSION = "2";

  private static final int FIELDS = 7;
  private static final int ANNOUNCED_FIELDS = 10;

  /**
   * KEYS: the host's kept state; ARGV: the lease in milliseconds (0: forget), the interval (µs),
   * the in-flight limit, the quota's permits, its window (µs), how long its window stays full
   * (µs), the pause left (µs), the announced starts a window (0: none), their window (µs) and how
   * long until it resets (µs); answers 1.
   */
  static final String KEEP = String.join("\n",
      ClaimScript.NOW_MICROS,
      "if tonumber(ARGV[1]) <= 0 then redis.call('DEL', KEYS[1]) return 1 end",
      "local function at(left) if tonumber(left) > 0 then return string.format('%.0f', now + tonumber(left)) end return '0' end",
      "local kept = '" + VERSION + "' .. '\\t' .. ARGV[2] .. '\\t' .. ARGV[3] .. '\\t' .. ARGV[4] .. '\\t' .. ARGV[5]"
          + " .. '\\t' .. at(ARGV[6]) .. '\\t' .. at(ARGV[7])",
      "if tonumber(ARGV[8]) > 0 then",
      "  kept = '" + ANNOUNCED_VERSION + "' .. string.sub(kept, 2) .. '\\t' .. ARGV[8] .. '\\t' .. ARGV[9]"
          + " .. '\\t' .. string.format('%.0f', now + tonumber(ARGV[10]))",
      "end",
      "redis.call('SET', KEYS[1], kept, 'PX', ARGV[1])",
      "return 1");

  /** KEYS: the host's kept state; answers the kept text and Redis's time in microseconds, or nil. */
  static final String RECALL = String.join("\n",
      ClaimScript.NOW_MICROS,
      "local kept = redis.call('GET', KEYS[1])",
      "if not kept then return nil end",
      "return {kept, string.format('%.0f', now)}");

  /**
   * KEYS: the host's kept state; ARGV: as {@link #KEEP}'s ({@link #recallOrKeepArgs}); keeps them
   * as {@link #KEEP} does only if nothing is kept, nothing too (all fields 0, which reads as
   * nothing kept), then answers as {@link #RECALL}: one script, so processes that rejoin together
   * all read the first one's, also when the first held nothing. Never answers nil: a nil is the
   * fleet's for "Redis could not be asked", which an engine that held nothing as Redis was lost
   * would else read at each rejoin, and so never take the fleet's pace.
   */
  static final String RECALL_OR_KEEP = String.join("\n",
      ClaimScript.NOW_MICROS,
      "local kept = redis.call('GET', KEYS[1])",
      "if not kept then",
      "  local function at(left) if tonumber(left) > 0 then return string.format('%.0f', now + tonumber(left)) end return '0' end",
      "  kept = '" + VERSION + "' .. '\\t' .. ARGV[2] .. '\\t' .. ARGV[3] .. '\\t' .. ARGV[4] .. '\\t' .. ARGV[5]"
          + " .. '\\t' .. at(ARGV[6]) .. '\\t' .. at(ARGV[7])",
      "  if tonumber(ARGV[1]) > 0 then redis.call('SET', KEYS[1], kept, 'PX', ARGV[1]) end",
      "end",
      "return {kept, string.format('%.0f', now)}");

  private KeptScripts() {}

  /** The arguments of {@link #KEEP} for {@code kept}, held {@code keepForNanos} (rounded up to a millisecond); nothing is forgotten. */
  static String[] keepArgs(Kept kept, long keepForNanos) {
    return args(kept, kept.nothing() ? 0 : millis(keepForNanos));
  }

  /**
   * The arguments of {@link #RECALL_OR_KEEP} for {@code kept}, held {@code keepForNanos} (rounded up
   * to a millisecond), nothing too: what the first to rejoin held, nothing or not, is what the
   * others read.
   */
  static String[] recallOrKeepArgs(Kept kept, long keepForNanos) {
    return args(kept, keepForNanos == 0 ? 0 : millis(keepForNanos));
  }

  private static long millis(long nanos) {
    return Math.max(1, nanos / 1_000_000 + (nanos % 1_000_000 == 0 ? 0 : 1));
  }

  private static String[] args(Kept kept, long millis) {
    return new String[] {
      Long.toString(millis),
      Long.toString(ClaimScript.micros(kept.intervalNanos())),
      Integer.toString(kept.inFlightLimit()),
      Integer.toString(kept.quotaPermits()),
      Long.toString(ClaimScript.micros(kept.quotaWindowNanos())),
      Long.toString(ClaimScript.micros(kept.quotaFullForNanos())),
      Long.toString(ClaimScript.micros(kept.pauseLeftNanos())),
      Long.toString(kept.announcedLimit()),
      Long.toString(ClaimScript.micros(kept.announcedWindowNanos())),
      Long.toString(ClaimScript.micros(kept.announcedResetNanos())),
    };
  }

  /**
   * What {@link #RECALL}'s answer says is kept, as of Redis's look: null for nothing kept, for a
   * version this release does not read, or for text that does not read as one; never throws.
   */
  static @Nullable Kept read(@Nullable List<?> answer) {
    if (answer == null || answer.size() != 2 || answer.get(0) == null || answer.get(1) == null) {
      return null;
    }
    String[] fields = String.valueOf(answer.get(0)).split("\t", -1);
    boolean announced = fields.length == ANNOUNCED_FIELDS && fields[0].equals(ANNOUNCED_VERSION);
    if (!announced && (fields.length != FIELDS || !fields[0].equals(VERSION))) {
      return null;
    }
    try {
      long now = count(String.valueOf(answer.get(1)));
      long interval = ClaimScript.nanos(count(fields[1]));
      int inFlight = Math.toIntExact(count(fields[2]));
      int permits = Math.toIntExact(count(fields[3]));
      long window = ClaimScript.nanos(count(fields[4]));
      long fullFor = left(count(fields[5]), now);
      long pause = left(count(fields[6]), now);
      if (!announced) {
        return new Kept(interval, inFlight, permits, window, Math.min(fullFor, window), pause);
      }
      long limit = count(fields[7]);
      long announcedWindow = ClaimScript.nanos(count(fields[8]));
      long resetAt = count(fields[9]);
      long resetIn = resetAt > now ? Math.min(ClaimScript.nanos(resetAt - now), announcedWindow)
          : announcedWindow == 0 ? 0 : announcedWindow - Math.floorMod(ClaimScript.nanos(now - resetAt), announcedWindow);
      return new Kept(interval, inFlight, permits, window, Math.min(fullFor, window), pause, limit, announcedWindow,
          resetIn); // past the reset kept, the windows after it follow one another whole
    } catch (IllegalArgumentException | ArithmeticException notKept) { // not a count, or a field Kept refuses
      return null;
    }
  }

  /** {@code text} as a whole number of zero or more. */
  private static long count(String text) {
    long value = Long.parseLong(text);
    if (value < 0) {
      throw new IllegalArgumentException("a kept field is never negative: " + text);
    }
    return value;
  }

  /** Nanoseconds from {@code now} to {@code until}, both microseconds of Redis's clock; 0 for none or past. */
  private static long left(long until, long now) {
    return until > now ? ClaimScript.nanos(until - now) : 0;
  }
}
