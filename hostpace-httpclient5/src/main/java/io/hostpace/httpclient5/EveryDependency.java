package io.hostpace.httpclient5;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.concurrent.CancellableDependency;

/**
 * The cancellable dependency of one async attempt, as the chain below the handler sees it: it
 * keeps every dependency set on it (the connection lease, the connect, the exchange), and
 * {@link #cancel()} cancels them all, not only the last one set.
 *
 * <p>Why: HttpClient 5.6.5's {@code AsyncConnectExec} sets the lease's and the connect's
 * cancellable after starting them, so when they complete at once on the I/O thread, the
 * exchange's cancellable, set further down meanwhile, is overwritten by a finished one, and a
 * cancel of the call's future no longer reaches the exchange (now and then, on a fast connect).
 * Cancelling a finished lease or connect does nothing; cancelling the exchange aborts it.
 */
final class EveryDependency implements CancellableDependency {

  @GuardedBy("this")
  private final List<Cancellable> dependencies = new ArrayList<>(4);
  @GuardedBy("this")
  private boolean cancelled;

  @Override
  public void setDependency(Cancellable dependency) {
    synchronized (this) {
      if (!cancelled) {
        dependencies.add(dependency);
        return;
      }
    }
    dependency.cancel(); // set after the cancel: cancelled at once, as HttpClient's own dependencies do
  }

  @Override
  public synchronized boolean isCancelled() {
    return cancelled;
  }

  @Override
  public boolean cancel() {
    List<Cancellable> all;
    synchronized (this) {
      if (cancelled) {
        return false;
      }
      cancelled = true;
      all = new ArrayList<>(dependencies);
      dependencies.clear();
    }
    for (Cancellable dependency : all) {
      dependency.cancel();
    }
    return true;
  }
}
