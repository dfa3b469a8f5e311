package io.hostpace.redis;

/**
 * The Lua script that claims a start now of one or more keys at once (a host and its paced
 * groups), atomically, on Redis's own clock, so that the fleet's processes need not share a
 * clock: only a delay travels back.
 *
 * <p>Each key holds the start the fleet was granted last, {@code last}, in microseconds of Redis's
 * clock ({@code TIME}), and beside it (a second key, {@link RedisKeys#shortest}) the shortest
 * interval claimed of it lately, {@code shortest}. A claim at {@code now} first makes its
 * interval the key's {@code shortest} when there is none or it is no longer, for one and a half
 * of it (so a fleet that slowed is not held to its old pace). The claim is held to
 * {@code shortest}, or to its own interval when that is longer than {@code shortest} by more than
 * a sixteenth of itself (a pace beyond the noise of the others', as after a refusal its process
 * heard: SPEC R5 wants the new pace). It is granted when, for every key, there is no {@code last}
 * or {@code now >= last + held}: {@code now} is stored as each key's new {@code last} and the
 * answer is 0. Else no start is stored and the answer is the longest {@code last + held - now},
 * when to claim again: the claims that wait are told the same time, whatever their own
 * intervals within that noise. So a process paced a little slower than the others asks with them
 * and gets its turns; held to its own interval since the last start it would never find so long a
 * gap while they claim, and the fleet, either way, goes no faster than its fastest pace. With
 * intervals of 1 s and claims of one key at Redis times 100.000 s, 100.200 s and 101.000 s: the
 * answers are 0, 0.8 s and 0, and the last start is 101.000 s; a claim of 1.05 s at 100.200 s is
 * told 0.8 s too, one of 2 s 1.8 s. On a Redis Cluster the keys of one claim share a slot, as
 * their names carry one hash tag ({@link RedisKeys}); a claim whose keys do not is refused by
 * the Cluster and unclaimed.
 *
 * <p>The key of the last start expires once it can no longer hold a start back: the granted
 * claim's {@code interval} after the grant (a claim after that is granted whatever the key says),
 * plus a second's margin. So a fleet that met a million hosts holds keys only for those it
 * started something on lately.
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
   * KEYS: each key's last granted start, then each key's shortest interval claimed lately, in the
   * same order; ARGV: each key's interval in microseconds, in the same order; answers 0 (granted)
   * or the longest wait in microseconds.
   */
  static final String SOURCE = String.join("\n",
      NOW_MICROS,
      "local n = #ARGV",
      "local wait = 0",
      "for i = 1, n do",
      "  local interval = tonumber(ARGV[i])",
      "  local shortest = tonumber(redis.call('GET', KEYS[n + i]))",
      "  if not shortest or interval <= shortest then",
      "    shortest = interval",
      "    local lasts = math.max(1, math.ceil(interval * 3 / 2 / 1000))",
      "    redis.call('SET', KEYS[n + i], ARGV[i], 'PX', string.format('%.0f', lasts))",
      "  end",
      "  local held = interval",
      "  if interval - shortest <= math.floor(interval / 16) then held = shortest end",
      "  local last = tonumber(redis.call('GET', KEYS[i]))",
      "  if last and last + held - now > wait then wait = last + held - now end",
      "end",
      "if wait > 0 then return wait end",
      "for i = 1, n do",
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
