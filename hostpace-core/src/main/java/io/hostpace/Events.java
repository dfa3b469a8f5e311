package io.hostpace;

/**
 * Where the engine's decisions put the events they make: the {@link Outbox} of the engine's lock,
 * or a call's own on the {@link LocalPath}; either is delivered after what guards the decision is
 * let go. Callers build an event only when {@link #listens()}; a learning rule's failure is kept
 * whatever listens.
 */
interface Events {

  /** Whether anybody listens, a listener or the log at {@code DEBUG}. */
  boolean listens();

  /** Records {@code event}, to be delivered once what guards the decision is let go. */
  void emit(HostpaceEvent event);

  /**
   * Records that {@code rule}, the engine's learning rule, threw {@code failure}: logged at
   * {@code WARNING} once what guards the decision is let go, whether or not anybody listens.
   */
  void ruleThrew(Object rule, Throwable failure);
}
