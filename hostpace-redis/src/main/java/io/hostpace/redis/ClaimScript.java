package io.hostpace.redis;

/**
 * The Lua script that claims a start now of one or more keys at once (a host and its paced
 * groups), atomically, on Redis's own clock, so that the fleet's processes need not share a
 * clock: only a delay travels back.
 *
 * <p>Each key holds the start the fleet was granted last, {@code last}, in microseconds of Redis's
 * clock ({@code TIME}). A claim at {@code now} is granted when, for every key, there is no
 * {@code last} or {@code now >= last + interval} (the key's own interval): {@code now} is stored as
 * each key's new {@code last} and the answer is 0. Else nothing is stored and the answer is the
 * longest {@code last + interval - now}, when to claim again. With an interval of 1 s and claims
 * of one key at Redis times 100.000 s, 100.200 s and 101.000 s: the answers are 0, 0.8 s and 0,
 * and the last start is 101.000 s. On a Redis Cluster the keys of one claim share a slot, as
 * their names carry one hash tag ({@link RedisKeys}); a claim whose keys do not is refused by
 * the Cluster and unclaimed.
 *
 * <p>The key expires once it can no longer hold a start back: {@code interval} after the grant
 * (a claim after that is granted whatever the key says), plus a second's margin. So a fleet that
 * met a million hosts holds keys only for those it started something on lately.
 */
final class ClaimScript {

  /** How long a key outlives the moment it stops mattering, in milliseconds. */
  static final long MARGIN_MILLIS = 1000;

  /**
   * The opening of each of the fleet's scripts: {@code now}, Redis's clock ({@code TIME}) in
   * microseconds, with effects replicated (Redis before 5 would refuse a write after {@code TIME}).
   */
  static final String NOW_MICROS = String.join("\n",
      "if redis.replicate_commands then redis.replicate_commands() end",
      "local time = redis.call('TIME')",
      "local now = tonumber(time[1]) * 1000000 + tonumber(time[2])");

  /**
   * KEYS: each key's last granted start; ARGV: each key's interval in microseconds, in the same
   * order; answers 0 (granted) or the longest wait in microseconds.
   */
  static final String SOURCE = String.join("\n",
      NOW_MICROS,
      "local wait = 0",
      "for i = 1, #KEYS do",
      "  local last = tonumber(redis.call('GET', KEYS[i]))",
      "  if last and last + tonumber(ARGV[i]) - now > wait then wait = last + tonumber(ARGV[i]) - now end",
      "end",
      "if wait > 0 then return wait end",
      "for i = 1, #KEYS do",
      "  local ttl = math.ceil(tonumber(ARGV[i]) / 1000) + " + MARGIN_MILLIS,
      "  redis.call('SET', KEYS[i], string.format('%.0f', now), 'PX', string.format('%.0f', ttl))",
      "end",
      "return 0");

  private ClaimScript() {}

  /** {@code intervalNanos} in whole microseconds, rounded up so the fleet never spaces less than asked. */
  static long micros(long intervalNanos) {
    return intervalNanos / 1000 + (intervalNanos % 1000 == 0 ? 0 : 1);
  }

  /** {@code micros} in nanoseconds, at most {@link Long#MAX_VALUE}, at least 0. */
  static long nanos(long micros) {
    if (micros <= 0) {
      return 0;
    }
    return micros >= Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : micros * 1000;
  }
}
