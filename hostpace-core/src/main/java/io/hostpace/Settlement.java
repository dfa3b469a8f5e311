package io.hostpace;

/**
 * What a {@link Call} reports its attempts' ends through: the engine's {@link Scheduler}, which
 * learns from them and frees or keeps the call's place under its lock. The call holds this, not
 * the engine, as a limiter's caller holds its token: a request flows down, and reports come back
 * through the one handle it was given.
 */
interface Settlement {

  /**
   * An attempt was answered, as {@code verdict} judges it.
   *
   * @return false when the call was cancelled meanwhile: the caller lets the response go
   */
  boolean settle(Call<?> call, Verdict verdict);

  /**
   * An attempt failed before any answer and is sent again through its queue (SPEC T6).
   *
   * @return false when it is not queued again: cancelled meanwhile, or the engine closed
   */
  boolean resend(Call<?> call);

  /**
   * An attempt failed without an answer (SPEC R6).
   *
   * @return false when the call was cancelled meanwhile
   */
  boolean fail(Call<?> call);

  /** The caller gave up on the call (SPEC T5): it leaves its queue, or frees its place. */
  void cancel(Call<?> call);

  /** Whether the engine's close has begun: an answer judged now is returned, not retried (SPEC T8). */
  boolean closing();
}
