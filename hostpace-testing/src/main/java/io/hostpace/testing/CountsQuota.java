package io.hostpace.testing;

/** A limit that counts a quota it can announce, as the {@code RateLimit} header says it. */
interface CountsQuota {

  /** Requests it would accept at {@code now}, one after the other. */
  long remaining(long now);

  /** Nanoseconds from {@code now} until the quota resets. */
  long resetIn(long now);
}
