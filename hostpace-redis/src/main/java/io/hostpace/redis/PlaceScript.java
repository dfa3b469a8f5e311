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
 *
 * <p>A place held until released ({@link #CLAIM}) may be waited for. A claim that finds them all
 * held, and asks to wait, is recorded as a waiter: a member of a second sorted set, the waiters,
 * scored by when it began to wait (its turn), with its terms in a hash beside it: when it ends
 * unless renewed (a lease after the claim or its last renewal), the limit it claimed with, and its
 * lease. Each claim and each release ({@link #RELEASE}) first grants the places free (let go, or
 * whose lease ran out) to the waiters in their turn, passing over those whose term ended (their
 * process died) and stopping at one whose limit is reached: the waiter is added to the places and
 * its process told on its own channel ({@code PUBLISH}, the text {@link #GRANTED}). With a limit of
 * 2 held by {@code a:1} and {@code b:1}, claims by {@code c:1} and {@code a:2} wait in that order;
 * {@code a:1}'s release grants {@code c:1} (2 held) and tells {@code c}; {@code b:1}'s grants
 * {@code a:2}. A waiter that claims again keeps its turn, and is answered the count held if it was
 * granted meanwhile; a release of a waiter withdraws it. The waiters' set and hash live as the
 * places' set does, a second after the last term in them would end.
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
   * The first field of the text a waiter's process hears when its claim is granted, on its
   * channel ({@link RedisKeys#granted}): {@code 1}, the engine's key, the place's number and how
   * many are held with it, separated by tabs ({@code 1\tquery.wikidata.org\t42\t2}). A later
   * version begins otherwise, and this release reads it as no grant (its claim asks again later).
   */
  static final String GRANTED = "1";

  /**
   * Lua functions the scripts of places that may be waited for share, with KEYS[1] the places,
   * KEYS[2] the waiters and KEYS[3] their terms: {@code lengthen(key, lease)} makes {@code key} live
   * at least a second after a lease from now; {@code grant(name, channels, claimant)} grants the
   * free places to the waiters in their turn, telling each on {@code channels .. origin} but the
   * {@code claimant}, and answers how many were held with the claimant's if it was one of them, else 0.
   */
  private static final String WAITERS = String.join("\n",
      "local function lengthen(key, lease)",
      "  local ttl = math.ceil(lease / 1000) + " + MARGIN_MILLIS,
      "  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, string.format('%.0f', ttl)) end",
      "end",
      "local function unwait(member)",
      "  if redis.call('ZREM', KEYS[2], member) == 1 then redis.call('HDEL', KEYS[3], member) end",
      "end",
      "local function grant(name, channels, claimant)",
      "  local mine = 0",
      "  while true do",
      "    local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]",
      "    if not first then return mine end",
      "    local terms = redis.call('HGET', KEYS[3], first)",
      "    local ends, limit, lease",
      "    if terms then ends, limit, lease = string.match(terms, '^(%d+) (%d+) (%d+)$') end",
      "    if not ends or tonumber(ends) <= now then",
      "      redis.call('ZREM', KEYS[2], first)", // its process died, or terms this release does not read
      "      redis.call('HDEL', KEYS[3], first)",
      "    else",
      "      local held = redis.call('ZCARD', KEYS[1])",
      "      if held >= tonumber(limit) then return mine end",
      "      redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(lease)), first)",
      "      lengthen(KEYS[1], tonumber(lease))",
      "      unwait(first)",
      "      if first == claimant then",
      "        mine = held + 1",
      "      else",
      "        local origin, place = string.match(first, '^(.+):(%d+)$')",
      "        if origin then",
      "          redis.call('PUBLISH', channels .. origin,",
      "            '" + GRANTED + "\t' .. name .. '\t' .. place .. '\t' .. string.format('%d', held + 1))",
      "        end",
      "      end",
      "    end",
      "  end",
      "end");

  /**
   * KEYS[1]: the key's places; KEYS[2]: its waiters; KEYS[3]: their terms; ARGV[1]: the member;
   * ARGV[2]: the limit; ARGV[3]: the lease in microseconds; ARGV[4]: {@code 1} to wait when all are
   * held, else {@code 0}; ARGV[5]: the engine's key; ARGV[6]: the channels' name before the origin.
   * Grants the places free to the waiters first; answers how many places are held with the
   * member's, or 0 if none was free (and then, if asked, it waits: its turn kept if it waited).
   */
  static final String CLAIM = String.join("\n",
      ClaimScript.NOW_MICROS,
      WAITERS,
      "local limit = tonumber(ARGV[2])",
      "local lease = tonumber(ARGV[3])",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))",
      "if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return redis.call('ZCARD', KEYS[1]) end",
      "local mine = grant(ARGV[5], ARGV[6], ARGV[1])",
      "if mine > 0 then return mine end",
      "local held = redis.call('ZCARD', KEYS[1])",
      "if held < limit then",
      "  redis.call('ZADD', KEYS[1], string.format('%.0f', now + lease), ARGV[1])",
      "  lengthen(KEYS[1], lease)",
      "  unwait(ARGV[1])",
      "  return held + 1",
      "end",
      "if ARGV[4] == '1' then",
      "  redis.call('ZADD', KEYS[2], 'NX', string.format('%.0f', now), ARGV[1])",
      "  redis.call('HSET', KEYS[3], ARGV[1], string.format('%.0f %d %.0f', now + lease, limit, lease))",
      "  lengthen(KEYS[2], lease)",
      "  lengthen(KEYS[3], lease)",
      "end",
      "return 0");

  /**
   * KEYS[1]: the key's places; KEYS[2]: its waiters; KEYS[3]: their terms; ARGV[1]: the member;
   * ARGV[2]: the engine's key; ARGV[3]: the channels' name before the origin. Lets the member's
   * place go, or withdraws it if it waits, then grants the places free to the waiters in their
   * turn; answers 1 if it held a place, else 0.
   */
  static final String RELEASE = String.join("\n",
      ClaimScript.NOW_MICROS,
      WAITERS,
      "local released = redis.call('ZREM', KEYS[1], ARGV[1])",
      "unwait(ARGV[1])",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))",
      "grant(ARGV[2], ARGV[3], '')",
      "return released");

  /**
   * KEYS[1]: the key's places; KEYS[2]: its waiters; KEYS[3]: their terms; ARGV[1]: the lease in
   * microseconds; ARGV[2...]: the members of this process to renew, held or waiting; answers how
   * many of them were still held or waiting, and now run out {@code lease} after {@code now}.
   */
  static final String RENEW = String.join("\n",
      ClaimScript.NOW_MICROS,
      WAITERS,
      "local lease = tonumber(ARGV[1])",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))",
      "local ends = string.format('%.0f', now + lease)",
      "local renewed = 0",
      "local waiting = 0",
      "for i = 2, #ARGV do",
      "  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then",
      "    redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[i])",
      "    renewed = renewed + 1",
      "  else",
      "    local terms = redis.call('HGET', KEYS[3], ARGV[i])",
      "    local was, limit",
      "    if terms then was, limit = string.match(terms, '^(%d+) (%d+) %d+$') end",
      "    if was and tonumber(was) > now then",
      "      redis.call('HSET', KEYS[3], ARGV[i], ends .. ' ' .. limit .. ' ' .. string.format('%.0f', lease))",
      "      waiting = waiting + 1",
      "    end",
      "  end",
      "end",
      "if renewed > 0 then lengthen(KEYS[1], lease) end",
      "if waiting > 0 then lengthen(KEYS[2], lease) lengthen(KEYS[3], lease) end",
      "return renewed + waiting");

  /**
   * What begins a process's member of the fleet's processes ({@link #PROCESSES}), which is scored by
   * when its own lease runs out: {@code v2:3f9a0c17d2e4b855}. An earlier release's member is the
   * bare process id (hex, never beginning so), scored by its last beat.
   */
  static final String PROCESS = "v2:";

  /**
   * KEYS[1]: the fleet's processes; ARGV[1]: this process's member ({@link #PROCESS}); ARGV[2]: its
   * lease in microseconds; ARGV[3]: 1 to count this process in, 0 to take it out. Scores the member
   * {@code now + lease} (or removes it), removes the members whose lease ran out (their process
   * died, or lost Redis for that long), each by its own lease, and answers how many are left. So a
   * process leased a minute, beating every 20 s, is counted by one leased 10 s between its beats.
   * An earlier release's member, scored by its beat, is kept a lease of the caller's after it, as
   * that release does: while a fleet is upgraded, each release counts the other's processes. The
   * set expires a lease and a second after the last heartbeat, never sooner than it would.
   */
  static final String PROCESSES = String.join("\n",
      ClaimScript.NOW_MICROS,
      "local lease = tonumber(ARGV[2])",
      "if ARGV[3] == '1' then redis.call('ZADD', KEYS[1], string.format('%.0f', now + lease), ARGV[1])",
      "else redis.call('ZREM', KEYS[1], ARGV[1]) end",
      "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%.0f', now - lease))", // an earlier release's too
      "for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('(%.0f', now))) do",
      "  if string.sub(member, 1, " + PROCESS.length() + ") == '" + PROCESS + "' then redis.call('ZREM', KEYS[1], member) end",
      "end",
      "local ttl = math.ceil(lease / 1000) + " + MARGIN_MILLIS,
      "if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl)) end",
      "return redis.call('ZCARD', KEYS[1])");

  private PlaceScript() {}
}
