package io.hostpace;

import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A call's future, which tells its call when it first ends exceptionally: the caller may end the
 * call by ending its future ({@code cancel}, {@code orTimeout}, which ends it through
 * {@code completeExceptionally}, {@code completeExceptionally} itself, {@code obtrudeException},
 * or a {@code completeAsync} whose supplier throws). The call then frees what it holds (SPEC T5);
 * when the engine itself failed the call, the call finds itself done and does nothing. This
 * stands in for a dependent stage on the future watching for a failure, which every call would
 * pay for in objects, though few calls are ever ended so. Stages that depend on it are plain
 * futures.
 */
final class CallFuture<R> extends CompletableFuture<R> {

  private final Call<R> call;

  CallFuture(Call<R> call) {
    this.call = call;
  }

  @Override
  public boolean completeExceptionally(Throwable failure) {
    boolean ended = super.completeExceptionally(failure);
    if (ended) {
      ended();
    }
    return ended;
  }

  /**
   * Cancels as {@link CompletableFuture#cancel} does, which is to end the future with a new
   * {@link CancellationException}; done so here to know whether this cancel is what ended it.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    if (isDone()) {
      return super.cancel(mayInterruptIfRunning);
    }
    boolean ended = super.completeExceptionally(new CancellationException());
    if (ended) {
      ended();
    }
    return ended || isCancelled();
  }

  /**
   * Tells the call when the future was not done before: a future already done had its first
   * end, which is the one that counts. Only a completion racing with this one could be missed or
   * told twice, and the call ignores a second telling.
   */
  @Override
  public void obtrudeException(Throwable failure) {
    boolean wasDone = isDone();
    super.obtrudeException(failure);
    if (!wasDone) {
      ended();
    }
  }

  /**
   * A supplier's failure would end the future without {@code completeExceptionally}: it ends it
   * through it here, in the form the JDK gives it (wrapped in a {@link CompletionException}).
   */
  @Override
  public CompletableFuture<R> completeAsync(Supplier<? extends R> supplier, Executor executor) {
    Objects.requireNonNull(supplier);
    return super.completeAsync(() -> {
      try {
        return supplier.get();
      } catch (Throwable failure) {
        completeExceptionally(failure instanceof CompletionException ? failure : new CompletionException(failure));
        throw failure;
      }
    }, executor);
  }

  /** A plain future: the stages that depend on a call's future do not end the call. */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }

  private void ended() {
    try {
      call.cancelled();
    } catch (Throwable e) {
      // Ending a call must not throw out of whoever ended its future: logged instead, as nobody
      // else would see it.
      call.cancelThrew(e);
    }
  }
}
