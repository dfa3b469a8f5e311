package io.hostpace.timeout;

import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The settings of the adaptive policy ({@link TimeoutPolicy#adaptive(AdaptiveTimeouts)}),
 * immutable and validated; build them with {@link #builder()}. What each does is told by the
 * policy's rules:
 *
 * <ol>
 * <li><b>Per kind</b> (SPEC D1, D2): a kind's budget is the {@code percentile} of its last
 *     {@code window} successes times {@code margin}, never below {@code floor} nor above
 *     {@code defaultBudget}; a kind that showed nothing gets {@code defaultBudget}. Our own timeout
 *     shrinks nothing: a kind cut off below the full budget gets the full budget next.
 * <li><b>Unreachable</b> (D3): {@code failFastAfter} unreachable outcomes in a row make the
 *     endpoint <em>down</em>: attempts fail fast until a trial, after {@code coolDown} or after
 *     {@code coolDownRequests} failed-fast attempts, whichever comes first (with a probe, no
 *     real request is the trial: the probe is). A failed trial doubles
 *     both, up to {@code maxCoolDown} and {@code maxCoolDownRequests}. Any answer ends it, and so
 *     does our timeout (the connection was made: slow, not dead).
 * <li><b>Slow</b> (D3, D4): {@code degradeAfterKinds} different kinds slow at the full budget (our
 *     timeout at it, or a 504) with no success between make the endpoint <em>degraded</em>: kinds
 *     that showed nothing get {@code degradedBudget} instead of the full one; kinds with successes
 *     keep their own. The reduced budget is never below what the endpoint's own last
 *     {@code window} successes (of any kind) took, times {@code margin} (D7): it cuts off only
 *     what is slower than the endpoint was seen to answer. The retries of one query are one
 *     kind, so they never degrade an endpoint. It decays: after {@code decayAfter}, or after
 *     {@code decayAfterRequests} reduced budgets, the full budget is tried again. A success of
 *     any kind ends it.
 * <li><b>The server's own limit</b> (D8): a 504 that came after at least {@code floor} is taken
 *     as the server's limit at work; the limit is the longest of the endpoint's last four such
 *     504s, or {@code serverLimit} until one is seen. An attempt that ended within a tenth of
 *     that limit, with a 504 or our own timeout, reached it: the query's own cost. It is no
 *     evidence that the endpoint is slow, and the engine does not send that query again
 *     ({@link TimeoutPolicy#reachedServerLimit}): the server has said it will not answer it
 *     within its limit, and another try would cost the limit again.
 * <li><b>Probe</b> (optional, SPEC D6): with a {@code probeBudget}, the engine sends the
 *     probe its adapter names ({@code Hostpace.Builder.probe}), cut off after that budget, through
 *     the host's queue: for a down endpoint at the end of each cool-down, instead of a real trial;
 *     for a degraded one at the decay, instead of a real request at the full budget; and at once
 *     for a request that would fail fast or get the reduced budget, which waits for it. A probe
 *     the adapter counts healthy ends the state; any other outcome keeps it, doubles the
 *     cool-down of a down endpoint, and starts a degraded one's decay over.
 * </ol>
 *
 * @param defaultBudget the full budget, and the most any attempt gets
 * @param floor the least budget learned from successes
 * @param degradedBudget the budget of a kind that showed nothing, while the endpoint is degraded
 * @param margin the factor on what a kind has taken
 * @param window how many recent successes of each kind are kept
 * @param percentile which of them counts, in (0, 1]: 1 the slowest, 0.95 the 95th percentile
 * @param failFastAfter unreachable outcomes in a row before the endpoint is down
 * @param coolDown the first cool-down of a down endpoint
 * @param maxCoolDown the longest it grows to
 * @param coolDownRequests failed-fast attempts after which a trial goes even within the cool-down
 * @param maxCoolDownRequests the most it grows to
 * @param degradeAfterKinds different kinds slow at the full budget before the endpoint is degraded
 * @param decayAfter how long a degraded endpoint goes without the full budget being tried again
 * @param decayAfterRequests how many reduced budgets it gives before the full budget is tried again
 * @param probeBudget the probe's timeout, or null for no probe
 * @param serverLimit the server's own limit on a query, as far as it is known before any 504
 *     teaches it, or null for none known
 * @param capacity the most endpoints, and the most (endpoint, kind) pairs, kept; the least
 *     recently used are forgotten
 * @param listener hears the changes of state, or null
 */
public record AdaptiveTimeouts(
    Duration defaultBudget,
    Duration floor,
    Duration degradedBudget,
    double margin,
    int window,
    double percentile,
    int failFastAfter,
    Duration coolDown,
    Duration maxCoolDown,
    int coolDownRequests,
    int maxCoolDownRequests,
    int degradeAfterKinds,
    Duration decayAfter,
    int decayAfterRequests,
    @Nullable Duration probeBudget,
    @Nullable Duration serverLimit,
    int capacity,
    @Nullable Consumer<TimeoutEvent> listener) {

  public AdaptiveTimeouts {
    long full = Durations.positive("adaptive timeouts: defaultBudget", defaultBudget);
    long least = Durations.positive("adaptive timeouts: floor", floor);
    long reduced = Durations.positive("adaptive timeouts: degradedBudget", degradedBudget);
    if (least > full) {
      throw new IllegalArgumentException("adaptive timeouts: floor " + Durations.format(floor)
          + " is above the default budget " + Durations.format(defaultBudget)
          + ": expected a floor at most the default budget");
    }
    if (reduced > full) {
      throw new IllegalArgumentException("adaptive timeouts: degradedBudget " + Durations.format(degradedBudget)
          + " is above the default budget " + Durations.format(defaultBudget)
          + ": expected a reduced budget at most the default budget");
    }
    if (!(margin >= 1) || Double.isInfinite(margin)) {
      throw new IllegalArgumentException("adaptive timeouts: margin " + margin
          + " is not a factor of 1 or more: a budget below what a kind took would cut it off");
    }
    if (!(percentile > 0 && percentile <= 1)) {
      throw new IllegalArgumentException("adaptive timeouts: percentile " + percentile
          + " is not in (0, 1]: expected 1 for the slowest recent success, 0.95 for the 95th percentile");
    }
    atLeastOne("window", window);
    atLeastOne("failFastAfter", failFastAfter);
    atLeastOne("coolDownRequests", coolDownRequests);
    atLeastOne("degradeAfterKinds", degradeAfterKinds);
    atLeastOne("decayAfterRequests", decayAfterRequests);
    atLeastOne("capacity", capacity);
    if (Durations.positive("adaptive timeouts: maxCoolDown", maxCoolDown)
        < Durations.positive("adaptive timeouts: coolDown", coolDown)) {
      throw new IllegalArgumentException("adaptive timeouts: maxCoolDown " + Durations.format(maxCoolDown)
          + " is below coolDown " + Durations.format(coolDown) + ": expected the cool-down to grow, not shrink");
    }
    if (maxCoolDownRequests < coolDownRequests) {
      throw new IllegalArgumentException("adaptive timeouts: maxCoolDownRequests " + maxCoolDownRequests
          + " is below coolDownRequests " + coolDownRequests + ": expected the cool-down to grow, not shrink");
    }
    Durations.positive("adaptive timeouts: decayAfter", decayAfter);
    if (probeBudget != null) {
      Durations.positive("adaptive timeouts: probeBudget", probeBudget);
    }
    if (serverLimit != null) {
      Durations.positive("adaptive timeouts: serverLimit", serverLimit);
    }
  }

  private static void atLeastOne(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException("adaptive timeouts: " + name + " " + value + " is not a count: expected 1 or more");
    }
  }

  /** The defaults: see {@link Builder}. */
  public static AdaptiveTimeouts defaults() {
    return builder().build();
  }

  /** A builder with the defaults; each setter names its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.defaultBudget = defaultBudget;
    builder.floor = floor;
    builder.degradedBudget = degradedBudget;
    builder.margin = margin;
    builder.window = window;
    builder.percentile = percentile;
    builder.failFastAfter = failFastAfter;
    builder.coolDown = coolDown;
    builder.maxCoolDown = maxCoolDown;
    builder.coolDownRequests = coolDownRequests;
    builder.maxCoolDownRequests = maxCoolDownRequests;
    builder.degradeAfterKinds = degradeAfterKinds;
    builder.decayAfter = decayAfter;
    builder.decayAfterRequests = decayAfterRequests;
    builder.probeBudget = probeBudget;
    builder.serverLimit = serverLimit;
    builder.capacity = capacity;
    builder.listener = listener;
    return builder;
  }

  /** Builds {@link AdaptiveTimeouts}; {@link #build()} copies, so a builder can be reused. */
  public static final class Builder {
    private Duration defaultBudget = Duration.ofSeconds(60);
    private @Nullable Duration floor;
    private @Nullable Duration degradedBudget;
    private double margin = 2;
    private int window = 8;
    private double percentile = 1;
    private int failFastAfter = 3;
    private Duration coolDown = Duration.ofSeconds(1);
    private Duration maxCoolDown = Duration.ofSeconds(60);
    private int coolDownRequests = 2;
    private int maxCoolDownRequests = 64;
    private int degradeAfterKinds = 2;
    private Duration decayAfter = Duration.ofMinutes(5);
    private int decayAfterRequests = 4;
    private @Nullable Duration probeBudget;
    private @Nullable Duration serverLimit;
    private int capacity = 10_000;
    private @Nullable Consumer<TimeoutEvent> listener;

    private Builder() {}

    /** The full budget, and the most any attempt gets. Default 60 s. */
    public Builder defaultBudget(Duration defaultBudget) {
      this.defaultBudget = defaultBudget;
      return this;
    }

    /** The least budget learned from successes. Default a tenth of the default budget. */
    public Builder floor(Duration floor) {
      this.floor = floor;
      return this;
    }

    /** The budget of a kind that showed nothing while the endpoint is degraded. Default the floor. */
    public Builder degradedBudget(Duration degradedBudget) {
      this.degradedBudget = degradedBudget;
      return this;
    }

    /** The factor on what a kind has taken. Default 2. */
    public Builder margin(double margin) {
      this.margin = margin;
      return this;
    }

    /** How many recent successes of each kind count. Default 8. */
    public Builder window(int window) {
      this.window = window;
      return this;
    }

    /** Which of the recent successes counts: 1 the slowest (the default), 0.95 the 95th percentile. */
    public Builder percentile(double percentile) {
      this.percentile = percentile;
      return this;
    }

    /** Unreachable outcomes in a row before the endpoint is down. Default 3. */
    public Builder failFastAfter(int failFastAfter) {
      this.failFastAfter = failFastAfter;
      return this;
    }

    /** The first cool-down of a down endpoint and the longest it doubles to. Default 1 s, 60 s. */
    public Builder coolDown(Duration first, Duration max) {
      this.coolDown = first;
      this.maxCoolDown = max;
      return this;
    }

    /** Failed-fast attempts after which a trial goes even within the cool-down, and the most it doubles to. Default 2, 64. */
    public Builder coolDownRequests(int first, int max) {
      this.coolDownRequests = first;
      this.maxCoolDownRequests = max;
      return this;
    }

    /** Different kinds slow at the full budget, with no success between, before the endpoint is degraded. Default 2. */
    public Builder degradeAfterKinds(int kinds) {
      this.degradeAfterKinds = kinds;
      return this;
    }

    /** After how long, or how many reduced budgets, a degraded endpoint tries the full budget again. Default 5 min, 4. */
    public Builder decayAfter(Duration time, int requests) {
      this.decayAfter = time;
      this.decayAfterRequests = requests;
      return this;
    }

    /**
     * Has the engine probe a down or degraded endpoint with the probe its adapter names, cut off
     * after {@code budget} (SPEC D6), instead of sending real requests as trials; the engine must
     * then be given a probe. Default none.
     */
    public Builder probe(@Nullable Duration budget) {
      this.probeBudget = budget;
      return this;
    }

    /**
     * The server's own limit on a query (SPEC D8), as far as it is known before a 504 teaches
     * it: the 504s that come after at least the floor then take its place. Default none known.
     */
    public Builder serverLimit(@Nullable Duration serverLimit) {
      this.serverLimit = serverLimit;
      return this;
    }

    /** The most endpoints, and the most (endpoint, kind) pairs, kept. Default 10,000. */
    public Builder capacity(int capacity) {
      this.capacity = capacity;
      return this;
    }

    /** Hears each change of an endpoint's state; a listener that throws is ignored. Default none. */
    public Builder listener(@Nullable Consumer<TimeoutEvent> listener) {
      this.listener = listener;
      return this;
    }

    public AdaptiveTimeouts build() {
      Duration least = floor != null ? floor : defaultBudget.dividedBy(10);
      return new AdaptiveTimeouts(
          defaultBudget, least, degradedBudget != null ? degradedBudget : least, margin, window, percentile,
          failFastAfter, coolDown, maxCoolDown, coolDownRequests, maxCoolDownRequests, degradeAfterKinds,
          decayAfter, decayAfterRequests, probeBudget, serverLimit, capacity, listener);
    }
  }
}
