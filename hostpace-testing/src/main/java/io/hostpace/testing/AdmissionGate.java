package io.hostpace.testing;

import java.util.PriorityQueue;

/**
 * Serves so many requests at once, its {@code places}, and refuses any more while they are all
 * taken, as the KGF servers' admission gate does with four. Refusals take no place.
 *
 * <p>Invariant: the requests in flight are {@code held} (accepted by {@link #admit(long)}, each
 * until {@link #end} is called) plus the times in {@code endsAt} still ahead (accepted by
 * {@link #admit(long, long)}, each until its time); a request is accepted while they are fewer
 * than {@code places}. With 2 places: at 0 s a request to end at 0.5 s and an open one are
 * accepted, a third is refused and told the gate is free at 0.5 s; at 0.5 s one is accepted again.
 */
public final class AdmissionGate implements ServerLimit {

  private int places;
  private int held;
  private final PriorityQueue<Long> endsAt = new PriorityQueue<>();

  /** A gate of {@code places} requests at once. */
  public AdmissionGate(int places) {
    this.places = checked(places);
  }

  @Override
  public boolean admit(long now) {
    if (inFlight(now) >= places) {
      return false;
    }
    held++;
    return true;
  }

  @Override
  public boolean admit(long now, long endsAt) {
    if (inFlight(now) >= places) {
      return false;
    }
    this.endsAt.add(endsAt);
    return true;
  }

  @Override
  public void end(long now) {
    if (held == 0) {
      throw new IllegalStateException("no request holds a place until told its end: admit(now) takes one");
    }
    held--;
  }

  @Override
  public long freeAt(long now) {
    if (inFlight(now) < places) {
      return now;
    }
    return endsAt.isEmpty() ? Long.MAX_VALUE : endsAt.peek();
  }

  /** The requests in flight at {@code now}. */
  public int inFlight(long now) {
    while (!endsAt.isEmpty() && endsAt.peek() - now <= 0) {
      endsAt.poll();
    }
    return held + endsAt.size();
  }

  /** From now on, {@code places} at once; requests in flight beyond them keep theirs until they end. */
  public void places(int places) {
    this.places = checked(places);
  }

  private static int checked(int places) {
    if (places < 1) {
      throw new IllegalArgumentException("a gate serves at least 1 request at once, got " + places);
    }
    return places;
  }
}
