package io.hostpace.okhttp;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.spi.Exchange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;

/**
 * Runs one call of a blocking client through the engine, each attempt sent on the calling thread,
 * and lets the client's own cancel reach the call while it waits in its queue.
 *
 * <p>Why not {@link Hostpace#send}: it sends on the calling thread too, but only an interrupt
 * ends its wait, and OkHttp's {@code Call.cancel()} interrupts nothing. So the call goes to
 * {@link Hostpace#execute}, whose future the cancel can reach, and the calling thread waits on a
 * mailbox of its own: each attempt the engine starts is handed to it, and it sends it.
 *
 * <pre>
 * engine:          start ─→ exchange.send() ─→ mailbox.add(attempt)   (any thread: a timer, a freed place)
 * calling thread:  take() ─→ blocking.send() ─→ attempt.complete(response)
 *                  take() ... until the call is done: its response, its failure, or cancelled
 * client's cancel: call.cancel(true) ─→ the engine frees the call's place or queue entry ─→ wake
 * </pre>
 */
final class CallingThread {

  /** One attempt of a blocking client: sends on the calling thread and returns at the response headers. */
  interface BlockingExchange<R> {
    URI uri();

    String method();

    boolean canResend();

    R send() throws IOException;

    int status(R response);

    @Nullable String header(R response, String name);

    void discard(R response);
  }

  private static final Runnable WAKE = () -> {};

  private CallingThread() {}

  /**
   * The response the call ends with. {@code onCancel} receives the action that cancels the call,
   * to hand to the client's own cancel.
   *
   * @throws IOException the attempt's own failure, as it is; {@code cancelled} when the client's cancel ended the call
   * @throws InterruptedIOException when the thread is interrupted; the call is cancelled and the interrupt kept
   */
  static <R> R call(Hostpace engine, BlockingExchange<R> blocking, CallContext context,
      java.util.function.Consumer<Runnable> onCancel, java.util.function.Supplier<IOException> cancelled) throws IOException {
    LinkedBlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();
    CompletableFuture<R> call = engine.execute(new Handed<>(blocking, mailbox), context);
    call.whenComplete((response, failure) -> mailbox.add(WAKE));
    onCancel.accept(() -> call.cancel(true));
    try {
      while (!call.isDone()) {
        mailbox.take().run();
      }
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException("interrupted");
      interrupted.initCause(e);
      throw interrupted;
    }
    try {
      return call.join();
    } catch (CancellationException e) {
      throw cancelled.get();
    } catch (CompletionException e) {
      throw rethrow(e.getCause());
    }
  }

  private static IOException rethrow(@Nullable Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IOException(cause);
  }

  /** The exchange the engine sees: each attempt is handed to the calling thread's mailbox. */
  private static final class Handed<R> implements Exchange<R> {
    private final BlockingExchange<R> blocking;
    private final LinkedBlockingQueue<Runnable> mailbox;

    Handed(BlockingExchange<R> blocking, LinkedBlockingQueue<Runnable> mailbox) {
      this.blocking = blocking;
      this.mailbox = mailbox;
    }

    @Override
    public URI uri() {
      return blocking.uri();
    }

    @Override
    public String method() {
      return blocking.method();
    }

    @Override
    public boolean canResend() {
      return blocking.canResend();
    }

    @Override
    public CompletableFuture<R> send() {
      CompletableFuture<R> attempt = new CompletableFuture<>();
      mailbox.add(() -> {
        if (attempt.isDone()) {
          return; // cancelled before its turn
        }
        try {
          R response = blocking.send();
          if (!attempt.complete(response)) {
            blocking.discard(response); // cancelled while it was sent
          }
        } catch (IOException | RuntimeException | Error e) {
          attempt.completeExceptionally(e);
        }
      });
      return attempt;
    }

    @Override
    public int status(R response) {
      return blocking.status(response);
    }

    @Override
    public @Nullable String header(R response, String name) {
      return blocking.header(response, name);
    }

    @Override
    public void discard(R response) {
      blocking.discard(response);
    }
  }
}
