package io.hostpace.redis;

import io.hostpace.spi.Fleet.Spent;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The two Lua scripts by which a fleet's processes spend the starts a host announced together
 * (SPEC R8, S3), on Redis's own clock.
 *
 * <p>A host's key is a hash: {@code left}, the starts left; {@code order}, the fleet's count of
 * spends when the attempt whose word stands started; {@code spends}, the fleet's count of the
 * host's spends; {@code reset}, when the announcement ends, in microseconds of Redis's clock;
 * and, when the host said how many it takes a window, {@code limit}, {@code window} (microseconds,
 * its longest announced reset) and {@code rolled}, the count of spends when the announcement last
 * rolled into a new window: both scripts first roll a count past its reset into the window of
 * now, all of {@code limit} left, and an announcement by an attempt started before the roll
 * ({@code k} at most {@code rolled}) is of the window that ended and changes nothing. (A release
 * that reads no {@code limit} ends the announcement at its reset, as before.) An
 * announcement of {@code remaining} by an attempt that started after spend {@code k} (0: not known)
 * stands, when none started later spoke, as {@code remaining} less the spends after {@code k} (the
 * host's count did not hold those); one of unknown order only ever lowers what is left. A spend
 * before the reset takes one of {@code left}, or, with none left, answers how long until the reset;
 * past the reset, or with no announcement, it is granted. Each spend is numbered, so that the
 * answers to its attempt can say which spends the host's count did not hold.
 *
 * <p>Example: the host says 9 remain to an attempt of unknown order, then 8 to another: 8 left;
 * two spends (1, 2): 6; the attempt of spend 1 is answered with 7 remaining: 7 less the one spend
 * after it, 6.
 *
 * <p>The hash lives an hour past the last announcement's reset, so that the numbers of the spends
 * in flight outlive a window, and a fleet that met a million hosts keeps hashes only for those that
 * announced lately.
 */
final class AnnouncedScripts {

  /** How long a host's hash outlives its announcement's reset, in milliseconds. */
  static final long KEPT_MILLIS = 3_600_000;

  /** Rolls a hash {@code h} of {@code left, order, spends, reset, limit, window, rolled} past its reset into the window of {@code now}. */
  private static final String ROLL = String.join("\n",
      "local function roll(h)",
      "  local reset, limit, window = tonumber(h[4]), tonumber(h[5]) or 0, tonumber(h[6]) or 0",
      "  if reset == nil or reset > now or limit <= 0 or window <= 0 then return h end",
      "  reset = reset + (math.floor((now - reset) / window) + 1) * window",
      "  local spends = tonumber(h[3]) or 0",
      "  redis.call('HSET', KEYS[1], 'left', string.format('%.0f', limit), 'order', string.format('%.0f', spends),"
          + " 'rolled', string.format('%.0f', spends), 'reset', string.format('%.0f', reset))",
      "  return {limit, spends, spends, reset, limit, window, spends}",
      "end");

  /**
   * KEYS: the host's hash; ARGV: remaining, the reset in microseconds from now, the announcing
   * attempt's order, the starts a window and the window in microseconds (0 and 0: not said); answers 1.
   */
  static final String ANNOUNCE = String.join("\n",
      ClaimScript.NOW_MICROS,
      ROLL,
      "local h = roll(redis.call('HMGET', KEYS[1], 'left', 'order', 'spends', 'reset', 'limit', 'window', 'rolled'))",
      "local left = tonumber(h[1])",
      "local order = tonumber(h[2]) or 0",
      "local spends = tonumber(h[3]) or 0",
      "local reset = tonumber(h[4])",
      "local remaining = tonumber(ARGV[1])",
      "local k = tonumber(ARGV[3])",
      "local current = reset ~= nil and reset > now",
      "if current and k > 0 and k <= (tonumber(h[7]) or 0) then return 1 end",
      "if tonumber(ARGV[4]) > 0 and tonumber(ARGV[5]) > 0 then",
      "  redis.call('HSET', KEYS[1], 'limit', ARGV[4], 'window',"
          + " string.format('%.0f', math.max(tonumber(h[6]) or 0, tonumber(ARGV[5]))))",
      "end",
      "if k > 0 and ((not current) or k >= order) then",
      "  left = math.max(0, remaining - math.max(0, spends - k))",
      "  order = k",
      "elseif not current then",
      "  left = remaining",
      "  order = 0",
      "else",
      "  left = math.min(left or remaining, remaining)",
      "end",
      "redis.call('HSET', KEYS[1], 'left', string.format('%.0f', left), 'order', string.format('%.0f', order),"
          + " 'spends', string.format('%.0f', spends), 'reset', string.format('%.0f', now + tonumber(ARGV[2])))",
      "redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2]) / 1000) + " + KEPT_MILLIS + ")",
      "return 1");

  /** KEYS: the host's hash; answers the spend's number and, with none left, the microseconds until the reset (else 0). */
  static final String SPEND = String.join("\n",
      ClaimScript.NOW_MICROS,
      ROLL,
      "local h = roll(redis.call('HMGET', KEYS[1], 'left', 'order', 'spends', 'reset', 'limit', 'window', 'rolled'))",
      "local left = tonumber(h[1]) or 0",
      "local spends = tonumber(h[3]) or 0",
      "local reset = tonumber(h[4])",
      "if reset ~= nil and reset > now and left <= 0 then return {spends, math.max(1, reset - now)} end",
      "if reset ~= nil and reset > now then redis.call('HSET', KEYS[1], 'left', string.format('%.0f', left - 1)) end",
      "local fresh = redis.call('EXISTS', KEYS[1]) == 0",
      "redis.call('HSET', KEYS[1], 'spends', string.format('%.0f', spends + 1))",
      "if fresh then redis.call('PEXPIRE', KEYS[1], " + KEPT_MILLIS + ") end",
      "return {spends + 1, 0}");

  private AnnouncedScripts() {}

  /** What {@link #SPEND}'s answer says; null when it does not read as one, never throws. */
  static @Nullable Spent read(@Nullable List<?> answer) {
    if (answer == null || answer.size() != 2 || !(answer.get(0) instanceof Long number)
        || !(answer.get(1) instanceof Long waitMicros) || number < 0 || waitMicros < 0) {
      return null;
    }
    return new Spent(number, ClaimScript.nanos(waitMicros));
  }
}
