package io.hostpace.timeout;

/** The same budget for every attempt; learns nothing. Stateless, so thread-safe. */
final class FixedPolicy implements TimeoutPolicy {

  private final Budget budget;

  FixedPolicy(long nanos) {
    this.budget = Budget.send(nanos, Budget.Basis.DEFAULT);
  }

  @Override
  public Budget budget(long now, String endpoint, String kind) {
    return budget;
  }

  @Override
  public void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {}

  @Override
  public String toString() {
    return "fixed " + Durations.format(budget.nanos());
  }
}
