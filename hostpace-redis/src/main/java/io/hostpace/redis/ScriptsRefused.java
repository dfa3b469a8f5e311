package io.hostpace.redis;

import io.hostpace.internal.Failures;
import io.hostpace.internal.Redaction;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Whether what Redis answered a fleet's first script says it will never run the fleet's scripts,
 * and what to do then: a read-only replica ({@code READONLY}, from the script's first write), a
 * user without scripting or without the fleet's keys ({@code NOPERM}), a Redis where
 * {@code EVALSHA}, {@code EVAL} or a command the scripts call is renamed or disabled
 * ({@code unknown command}). On such a Redis every claim would be unclaimed and each process would
 * pace alone, so the fleet is refused as it is made. Anything else (no answer in time, a
 * connection lost, a Redis busy, loading or out of memory) may pass, and the fleet is taken.
 */
final class ScriptsRefused {

  /** Redis's code, at the start of its error or where a script's error quotes it ({@code ...: -READONLY ...}). */
  private static final Pattern READ_ONLY = Pattern.compile("(?:^|[\\s:-])READONLY\\b");
  private static final Pattern NO_PERMISSION = Pattern.compile("(?:^|[\\s:-])NOPERM\\b");
  /** {@code ERR unknown command 'evalsha'}, or a script's {@code Unknown Redis command called from script}. */
  private static final Pattern UNKNOWN_COMMAND = Pattern.compile("(?i)\\bunknown (?:redis )?command\\b");

  private ScriptsRefused() {}

  /**
   * The exception that says the fleet {@code fleetName} cannot run on a Redis that failed its
   * first script with {@code error}, naming Redis's error and what to do; null if {@code error}
   * is none of those.
   */
  static @Nullable RedisCommandExecutionException of(String fleetName, Throwable error) {
    Throwable cause = Failures.unwrap(error);
    if (!(cause instanceof RedisCommandExecutionException)) { // not Redis's answer: a timeout, a lost connection
      return null;
    }
    String answered = String.valueOf(cause.getMessage());
    String todo;
    if (READ_ONLY.matcher(answered).find()) {
      todo = "it is a read-only replica: connect to the master (or to its Sentinels, redis-sentinel://...#MASTER)";
    } else if (NO_PERMISSION.matcher(answered).find()) {
      todo = "its user may not run them: grant it the scripting commands (the ACL category scripting) and the"
          + " fleet's keys and channels (~hostpace:* &hostpace:*), or connect as another user";
    } else if (UNKNOWN_COMMAND.matcher(answered).find()) {
      todo = "a command they need is renamed or disabled there: the fleet needs EVAL, EVALSHA and the commands its"
          + " scripts call, under their own names";
    } else {
      return null;
    }
    return new RedisCommandExecutionException(Redaction.printable("fleet '" + fleetName
        + "': Redis refused its scripts (" + Redaction.userInfo(answered) + "), so every claim would be unclaimed"
        + " and each process would pace alone; " + todo), cause);
  }
}
