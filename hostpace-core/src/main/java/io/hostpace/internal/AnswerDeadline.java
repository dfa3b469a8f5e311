package io.hostpace.internal;

import io.hostpace.Clock;
import io.hostpace.Timer;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The deadline of one attempt's whole answer, body included (SPEC T7), for an adapter whose
 * client bounds each read but not the answer: unless the answer is {@link #over()} first, it runs
 * its expiry once, on the timer's thread, when the answer timeout has passed since the attempt was
 * sent. The expiry drops what carries the answer (a connection, a response), which ends a read
 * blocked on it; the reader then raises {@link #failure} in place of what the broken read gave it.
 * The caller reads the body through {@link #body(InputStream)}, which does that for it and ends
 * the deadline when the body ends or is closed.
 *
 * <p>Why: a client's read timeout is per read; a body that trickles a byte a second passes every
 * read within it and never ends. Example: an answer timeout of 2 s, an attempt sent at 0 s whose
 * headers come at 0.1 s and whose body trickles: at 2 s the expiry drops the connection, and the
 * caller's read fails with a {@link SocketTimeoutException}.
 *
 * <p>Invariant: the state goes from running to over or to expired, once, whichever comes first;
 * the expiry runs only if it went to expired, and the timer's task is cancelled when it went to
 * over. The state is one atomic reference, since the expiry comes on the timer's thread and the
 * end of the body on the reader's. Thread-safe.
 */
public final class AnswerDeadline {

  private enum State { RUNNING, OVER, EXPIRED }

  private static final AnswerDeadline NONE = new AnswerDeadline("", Duration.ZERO, false, () -> {});

  static {
    NONE.state.set(State.OVER); // never runs, so never expires
  }

  private final String exchange;
  private final Duration timeout;
  private final boolean passedAtStart;
  private final Runnable expiry;
  private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
  /** The timer's task, set once right after it is scheduled; null for {@link #none()}. */
  private volatile Timer.@Nullable Cancellable scheduled;

  private AnswerDeadline(String exchange, Duration timeout, boolean passedAtStart, Runnable expiry) {
    this.exchange = exchange;
    this.timeout = timeout;
    this.passedAtStart = passedAtStart;
    this.expiry = expiry;
  }

  /** No deadline: never expires, and holds no timer. */
  public static AnswerDeadline none() {
    return NONE;
  }

  /**
   * The deadline of {@code exchange}'s answer (such as {@code "GET https://example.org/"}),
   * {@code timeout} after {@code sentAt}, a {@link Clock#nanoTime()} of {@code clock}: {@code
   * expiry} runs on {@code timer} when it passes, unless the answer is over first. A deadline that
   * has passed already expires at the timer's next turn, 1 ns from now; {@link #passed()} tells it
   * to a caller that would rather end the exchange at once, on its own thread.
   *
   * @param expiry drops what carries the answer; short, since it runs on the timer's thread
   */
  public static AnswerDeadline start(String exchange, Duration timeout, long sentAt, Clock clock, Timer timer,
      Runnable expiry) {
    Objects.requireNonNull(exchange, "exchange");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(expiry, "expiry");
    long remaining = timeout.toNanos() - (clock.nanoTime() - sentAt);
    AnswerDeadline deadline = new AnswerDeadline(exchange, timeout, remaining <= 0, expiry);
    // Nobody else holds the deadline yet, so over() cannot come before its task is known.
    deadline.scheduled = timer.schedule(deadline::expire, Math.max(remaining, 1));
    return deadline;
  }

  private void expire() {
    if (state.compareAndSet(State.RUNNING, State.EXPIRED)) {
      expiry.run();
    }
  }

  /** The answer has ended (read whole, failed, closed): the deadline no longer applies, and its timer is freed. */
  public void over() {
    if (state.compareAndSet(State.RUNNING, State.OVER)) {
      cancelTimer();
    }
  }

  private void cancelTimer() {
    Timer.Cancellable task = scheduled;
    if (task != null) {
      task.cancel();
    }
  }

  /** Whether the deadline passed before the answer was over, and so its expiry was run. */
  public boolean expired() {
    return state.get() == State.EXPIRED;
  }

  /**
   * Whether the deadline had passed already when it started. A caller that would rather not wait
   * for the expiry calls {@link #over()}, ends the exchange itself and raises {@link #failure};
   * the expiry may have run all the same, on the timer's thread, so ending twice must be harmless.
   */
  public boolean passed() {
    return passedAtStart;
  }

  /**
   * What the reader of an expired answer raises, with {@code cause}, what the dropped connection
   * gave it, if anything. The message names the exchange and the timeout.
   */
  public SocketTimeoutException failure(@Nullable Throwable cause) {
    SocketTimeoutException failure = new SocketTimeoutException(
        exchange + ": the answer was not read whole within its answer timeout of " + timeout);
    if (cause != null) {
      failure.initCause(cause);
    }
    return failure;
  }

  /** Raises {@link #failure} if the deadline has expired. */
  public void check() throws SocketTimeoutException {
    if (expired()) {
      throw failure(null);
    }
  }

  /**
   * What a failed read or close of the answer raises: the answer is over, and {@code e}, what the
   * client raised, is the deadline's {@link #failure} when the deadline had expired (the dropped
   * connection made it), else itself.
   */
  public IOException translated(IOException e) {
    over();
    return expired() ? failure(e) : e;
  }

  /**
   * {@code in}, the answer's body, as its caller reads it: once the deadline has expired, every
   * read raises the deadline's {@link #failure}, whatever the dropped connection made the read
   * raise or return (an end it made is no end but the timeout); the body's end, a failed read and
   * its closing end the deadline. Closing is held to the deadline as reading is, since a client's
   * close may read the rest of the body first.
   */
  public InputStream body(InputStream in) {
    return new Body(in);
  }

  @Override
  public String toString() {
    return "AnswerDeadline{" + exchange + ", " + timeout + ", " + state.get() + "}";
  }

  /** The body as the caller reads it, held to this deadline. */
  private final class Body extends FilterInputStream {
    Body(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      check();
      try {
        return ended(super.read());
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      try {
        return ended(super.read(b, off, len));
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } catch (IOException e) {
        throw translated(e);
      } finally {
        over();
      }
    }

    /** The read's result; an end that the dropped connection made is no end but the timeout. */
    private int ended(int read) throws SocketTimeoutException {
      if (read < 0) {
        check();
        over();
      }
      return read;
    }
  }
}
