package io.hostpace;

import io.hostpace.internal.AnnouncedQuota;
/**
 * What an answer means for its call, decided from the answer and the call alone before the
 * engine's lock is taken.
 *
 * @param status the answer's status
 * @param refusal whether the answer is a refusal (SPEC R1), which teaches the host
 * @param retryAfterNanos the delay the refusal asked for, -1 when none
 * @param next what the call does next
 * @param delayNanos for {@link Next#RETRY_LATER}, how long it waits first
 * @param reason for {@link Next#GIVE_UP}, why
 * @param quotaRemaining how many requests the answer announced remain of the host's quota until
 *     its reset (SPEC R8); -1 when it announced none
 * @param quotaResetNanos when it announced a quota, the time to its reset; -1 else
 * @param quotaLimit when it announced a quota, its requests a window, if it said; -1 else
 */
record Verdict(int status, boolean refusal, long retryAfterNanos, Next next, long delayNanos, String reason,
    long quotaRemaining, long quotaResetNanos, long quotaLimit) {

  enum Next {
    /** The answer goes to the caller. */
    DONE,
    /** A refusal goes to the caller as it is (SPEC T3). */
    GIVE_UP,
    /** The call goes back to its queue, ahead of later arrivals (SPEC T1). */
    RETRY,
    /** The call waits {@code delayNanos}, then goes back to its queue (SPEC T2). */
    RETRY_LATER
  }

  /**
   * The verdicts of the commonest answer, a status of 100 to 599 that goes to the caller with no
   * Retry-After, made once: a verdict is a value, which nothing compares by identity.
   */
  private static final Verdict[] DONE = new Verdict[500];

  static {
    for (int status = 100; status <= 599; status++) {
      DONE[status - 100] = new Verdict(status, false, -1, Next.DONE, 0, "", -1, -1, -1);
    }
  }

  static Verdict done(int status, boolean refusal, long retryAfterNanos) {
    if (!refusal && retryAfterNanos == -1 && status >= 100 && status <= 599) {
      return DONE[status - 100];
    }
    return new Verdict(status, refusal, retryAfterNanos, Next.DONE, 0, "", -1, -1, -1);
  }

  static Verdict giveUp(int status, long retryAfterNanos, String reason) {
    return new Verdict(status, true, retryAfterNanos, Next.GIVE_UP, 0, reason, -1, -1, -1);
  }

  static Verdict retry(int status, long retryAfterNanos) {
    return new Verdict(status, true, retryAfterNanos, Next.RETRY, 0, "", -1, -1, -1);
  }

  static Verdict retryLater(int status, long delayNanos) {
    return new Verdict(status, false, -1, Next.RETRY_LATER, delayNanos, "", -1, -1, -1);
  }

  /** This verdict, with the quota the answer announced (SPEC R8). */
  Verdict withQuota(AnnouncedQuota.Announced announced) {
    return !announced.says() ? this
        : new Verdict(status, refusal, retryAfterNanos, next, delayNanos, reason, announced.remaining(), announced.resetNanos(),
            announced.limit());
  }

  /**
   * This verdict in an engine that was closed: one that would retry ends the call with this
   * answer instead, as when its retries run out (SPEC T3); any other stands.
   */
  Verdict closing() {
    return switch (next) {
      case RETRY -> new Verdict(status, refusal, retryAfterNanos, Next.GIVE_UP, 0, "the engine was closed",
          quotaRemaining, quotaResetNanos, quotaLimit);
      case RETRY_LATER -> new Verdict(status, refusal, retryAfterNanos, Next.DONE, 0, "", quotaRemaining, quotaResetNanos,
          quotaLimit);
      default -> this;
    };
  }

  boolean retries() {
    return next == Next.RETRY || next == Next.RETRY_LATER;
  }
}
