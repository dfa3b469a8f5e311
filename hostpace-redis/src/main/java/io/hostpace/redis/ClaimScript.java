package io.hostpace.redis;

/**
 * The Lua script that claims a key's next start, atomically, on Redis's own clock, so that the
 * fleet's processes need not share a clock: only the delay travels back.
 *
 * <p>The key holds the start the fleet claimed last, {@code last}, in microseconds of Redis's
 * clock ({@code TIME}). A claim takes {@code slot = max(now, last + interval)}, stores it as the
 * new {@code last}, and answers {@code slot - now}.
 * With an interval of 1 s and claims at Redis times 100.000 s, 100.200 s and 100.300 s: the
 * slots are 100.000 s, 101.000 s and 102.000 s, and the answers 0, 0.8 s and 1.7 s.
 *
 * <p>The key expires once it can no longer hold a start back: {@code interval} after its slot
 * (a claim after that gets {@code now} whatever the key says), plus a second's margin. So a fleet
 * that met a million hosts holds keys only for those it started something on lately.
 */
final class ClaimScript {

  /** How long a key outlives the moment it stops mattering, in milliseconds. */
  static final long MARGIN_MILLIS = 1000;

  /** KEYS[1]: the key's last claimed start; ARGV[1]: the interval in microseconds; answers the delay in microseconds. */
  static final String SOURCE = String.join("\n",
      "if redis.replicate_commands then redis.replicate_commands() end",
      "local time = redis.call('TIME')",
      "local now = tonumber(time[1]) * 1000000 + tonumber(time[2])",
      "local interval = tonumber(ARGV[1])",
      "local last = tonumber(redis.call('GET', KEYS[1]))",
      "local slot = now",
      "if last and last + interval > now then slot = last + interval end",
      "local ttl = math.ceil((slot - now + interval) / 1000) + " + MARGIN_MILLIS,
      "redis.call('SET', KEYS[1], string.format('%.0f', slot), 'PX', string.format('%.0f', ttl))",
      "return slot - now");

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
