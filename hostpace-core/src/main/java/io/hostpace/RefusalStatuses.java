package io.hostpace;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Which HTTP statuses are refusals (SPEC R1): those that always are, and those that are only when
 * the answer carries a usable {@code Retry-After}. {@link #DEFAULT} is 429 and 503 always, 405
 * with {@code Retry-After} (as DBpedia sends). The engine ({@link Hostpace.Builder#refusalStatuses})
 * and Spring Kafka's back-off handler judge answers by the same value.
 *
 * <p>Immutable. {@link #isRefusal} is on the engine's path for every answer: it reads one entry of
 * a table indexed by status, without boxing or allocating. A status in both sets always is a
 * refusal.
 */
public final class RefusalStatuses {

  /** 429 and 503 always; 405 only with {@code Retry-After}. */
  public static final RefusalStatuses DEFAULT = of(Set.of(429, 503), Set.of(405));

  private static final byte NONE = 0;
  private static final byte ALWAYS = 1;
  private static final byte WITH_RETRY_AFTER = 2;

  /** Per status 0 to 599: {@link #NONE}, {@link #ALWAYS} or {@link #WITH_RETRY_AFTER}. */
  private final byte[] kinds = new byte[600];
  private final Set<Integer> always;
  private final Set<Integer> withRetryAfter;

  private RefusalStatuses(Set<Integer> always, Set<Integer> withRetryAfter) {
    this.always = sorted(always);
    this.withRetryAfter = sorted(withRetryAfter);
    for (int status : this.withRetryAfter) {
      kinds[status] = WITH_RETRY_AFTER;
    }
    for (int status : this.always) {
      kinds[status] = ALWAYS;
    }
  }

  /**
   * The statuses that are refusals: {@code always} with or without {@code Retry-After}, and
   * {@code withRetryAfter} only when the answer carries one.
   *
   * @throws IllegalArgumentException naming a status that is not 400 to 599: only an error may
   *     be a refusal, and an answer that succeeded or redirects is never one
   * @throws NullPointerException naming the set that is null or holds a null
   */
  public static RefusalStatuses of(Set<Integer> always, Set<Integer> withRetryAfter) {
    ErrorStatuses.check(Objects.requireNonNull(always, "always"), "always", "refusal status");
    ErrorStatuses.check(Objects.requireNonNull(withRetryAfter, "withRetryAfter"), "withRetryAfter", "refusal status");
    return new RefusalStatuses(always, withRetryAfter);
  }

  /** Whether an answer with {@code status} is a refusal; {@code hasRetryAfter}: it carries a usable one. */
  public boolean isRefusal(int status, boolean hasRetryAfter) {
    if (status < 0 || status >= kinds.length) {
      return false;
    }
    byte kind = kinds[status];
    return kind == ALWAYS || (kind == WITH_RETRY_AFTER && hasRetryAfter);
  }

  /** The statuses that are refusals with or without {@code Retry-After}, in ascending order. */
  public Set<Integer> always() {
    return always;
  }

  /** The statuses that are refusals only with {@code Retry-After}, in ascending order. */
  public Set<Integer> withRetryAfter() {
    return withRetryAfter;
  }

  private static Set<Integer> sorted(Set<Integer> statuses) {
    return Collections.unmodifiableSet(new LinkedHashSet<>(new TreeSet<>(statuses)));
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof RefusalStatuses that && always.equals(that.always) && withRetryAfter.equals(that.withRetryAfter);
  }

  @Override
  public int hashCode() {
    return 31 * always.hashCode() + withRetryAfter.hashCode();
  }

  @Override
  public String toString() {
    return "RefusalStatuses{always=" + always + ", withRetryAfter=" + withRetryAfter + "}";
  }
}
