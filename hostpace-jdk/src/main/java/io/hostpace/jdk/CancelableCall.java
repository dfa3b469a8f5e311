package io.hostpace.jdk;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The future {@link PacedHttpClient#sendAsync} returns, and every stage derived from it: cancelling
 * any of them before it is done cancels the call (SPEC T5). The JDK's own client promises the same
 * of its {@code sendAsync} ("futures derived from cancelable futures are themselves cancelable"),
 * and callers count on it: Jena holds a stage it derived with {@code thenApply},
 * {@code thenCompose} and {@code whenComplete}, and cancels that one, whose cancel would otherwise
 * end only itself while the call kept its place in the queue.
 *
 * <p>A derived stage is cancelled first, so that it ends as cancelled (not with the call's
 * cancellation wrapped in a {@code CompletionException}); it then cancels the call's own future,
 * whose cancel the client watches. The call's own future is the one every derived stage names, so
 * a stage derived from a derived stage cancels the call too.
 */
final class CancelableCall<T> extends CompletableFuture<T> {

  /** The call's own future, which a derived stage cancels; null in the call's own future. */
  private final @Nullable CompletableFuture<?> call;

  /** The call's own future. */
  CancelableCall() {
    this.call = null;
  }

  private CancelableCall(CompletableFuture<?> call) {
    this.call = call;
  }

  /** Every stage derived from this one cancels the call when it is cancelled. */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CancelableCall<>(call == null ? this : call);
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean wasDone = isDone();
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (!wasDone && cancelled && call != null) {
      call.cancel(mayInterruptIfRunning);
    }
    return cancelled;
  }
}
