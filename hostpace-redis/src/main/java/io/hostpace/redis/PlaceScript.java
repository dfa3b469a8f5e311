package io.hostpace.redis;

/**
 * The Lua script that claims one of a key's places for a process's request, atomically, on
 * Redis's own clock: the fleet's processes together hold no more of a host's requests at once than
 * its learned in-flight limit, and need not share a clock.
 *
 * <p>The key is a sorted set of the places held: each member is a request, {@code origin:place}
 * (the process's id and its number for the request), scored by when its lease runs out, in
 * microseconds of Redis's clock ({@code TIME}). A claim at {@code now} first removes the members
 * whose lease ran out (their process died, or forgot to release); then a member already there
 * is answered how many are held, its lease untouched; else, with {@code limit} or more held, the
 * answer is 0 and nothing is stored; else the member is added with {@code now + lease} and the
 * answer is how many are held with it. With a limit of 2 and claims by {@code a:1}, {@code b:1},
 * {@code a:2}, {@code a:1}: the answers are 1, 2, 0 and 2; after {@code b:1} is released
 * ({@code ZREM}), {@code a:2} gets 2.
 *
 * <p>The set expires a second after the last lease in it would: a fleet that met a million hosts
 * holds sets only for those it holds requests on, or held lately. A claim only lengthens the set's
 * life, so a process with a short lease never cuts a longer one short.
 *
 * <p>A process that lives renews the lease of the places it holds ({@link #RENEW}): each member it
 * names that is still in the set is scored {@code now + lease} again, and the set's life lengthened
 * as a claim does. Members whose lease ran out are removed first, and a member no longer there
 * (released, run out, or lost with a Redis that restarted empty) is not added back ({@code ZADD XX}):
 * a renewal never holds a place the fleet let go.
 */
final class PlaceScript {

  /** How long a set outlives the last lease in it, in milliseconds. */
  static final long MARGIN_MILLIS = 1000;

  /**
   * KEYS[1]: the key's places; ARGV[1]: the member; ARGV[2]: the limit; ARGV[3]: the lease in
   * microseconds; answers how many places are held with the member's, or 0 if none was free.
   */
  static final String SOURCE = String.join("\n",
      ClaimScript.NOW_MICROS,
      "local limit = tonumber(ARGV[2])",
      "local lease = tonumber(ARGV[3])",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))",
      "if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return redis.call('ZCARD', KEYS[1]) end",
      "local held = redis.call('ZCARD', KEYS[1])",
      "if held >= limit then return 0 end",
      "redis.call('ZADD', KEYS[1], string.format('%.0f', now + lease), ARGV[1])",
      "local ttl = math.ceil(lease / 1000) + " + MARGIN_MILLIS,
      "if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl)) end",
      "return held + 1");

  /**
   * KEYS[1]: the key's places; ARGV[1]: the lease in microseconds; ARGV[2...]: the members of this
   * process to renew; answers how many of them were still held, and now run out {@code lease}
   * after {@code now}.
   */
  static final String RENEW = String.join("\n",
      ClaimScript.NOW_MICROS,
      "local lease = tonumber(ARGV[1])",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))",
      "local ends = string.format('%.0f', now + lease)",
      "local renewed = 0",
      "for i = 2, #ARGV do",
      "  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then",
      "    redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[i])",
      "    renewed = renewed + 1",
      "  end",
      "end",
      "if renewed == 0 then return 0 end",
      "local ttl = math.ceil(lease / 1000) + " + MARGIN_MILLIS,
      "if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl)) end",
      "return renewed");

  /**
   * KEYS[1]: the fleet's processes; ARGV[1]: this process's member; ARGV[2]: the lease in
   * microseconds; ARGV[3]: 1 to count this process in, 0 to take it out. Scores the member
   * {@code now} (or removes it), removes the members not scored within a lease (their process
   * died, or lost Redis for that long), and answers how many are left. The set expires a lease and
   * a second after the last heartbeat.
   */
  static final String PROCESSES = String.join("\n",
      ClaimScript.NOW_MICROS,
      "local lease = tonumber(ARGV[2])",
      "if ARGV[3] == '1' then redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])",
      "else redis.call('ZREM', KEYS[1], ARGV[1]) end",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%.0f', now - lease))",
      "local ttl = math.ceil(lease / 1000) + " + MARGIN_MILLIS,
      "if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl)) end",
      "return redis.call('ZCARD', KEYS[1])");

  private PlaceScript() {}
}
