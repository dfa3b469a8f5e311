package io.hostpace.httpclient5;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.jspecify.annotations.Nullable;

/**
 * The data consumer of an answer the engine may not have judged yet: it holds the client's
 * signals (capacity, data, end, completion), in order, until it is told whose they are (the
 * caller's consumer and callback, or {@link #discard()}), then hands them on, and every later one
 * as it comes.
 *
 * <p>Rarely needed: the engine judges an answer inside {@code handleResponse}, so the target is
 * usually chosen before the first byte of the body. Only an answer that arrives before the engine
 * listens to the attempt waits here, and its bytes are copied while it waits.
 *
 * <p>Invariant: signals reach the target in the order the client gave them, one at a time; at
 * most one thread hands them on ({@code delivering}), and it drains the queue before it lets go.
 */
final class DeferredConsumer implements AsyncDataConsumer {

  /** Where an answer's signals go. */
  interface Target {
    void updateCapacity(CapacityChannel channel) throws IOException;

    void consume(ByteBuffer src) throws IOException;

    void streamEnd(@Nullable List<? extends Header> trailers) throws HttpException, IOException;

    void releaseResources();

    void completed();

    void failed(Exception cause);
  }

  /** One signal for the target. */
  interface Signal {
    void to(Target target) throws HttpException, IOException;
  }

  /**
   * The answer is let go: its body is read as fast as it comes and dropped, so that the connection
   * can be used again, up to {@link HostpaceHttpClient5#DISCARDED_BODY_LIMIT} bytes; a byte past
   * that fails the exchange, which closes the connection rather than read on.
   */
  static Target discard() {
    return new Discard();
  }

  private static final class Discard implements Target {
    /** Bytes dropped so far; only the client's I/O thread, one signal at a time, adds to it. */
    private long dropped;

    @Override
    public void updateCapacity(CapacityChannel channel) throws IOException {
      channel.update(Integer.MAX_VALUE);
    }

    @Override
    public void consume(ByteBuffer src) throws IOException {
      dropped += src.remaining();
      src.position(src.limit());
      if (dropped > HostpaceHttpClient5.DISCARDED_BODY_LIMIT) {
        throw new IOException("a refused answer's body went past " + HostpaceHttpClient5.DISCARDED_BODY_LIMIT
            + " bytes: its connection is closed rather than read on");
      }
    }

    @Override
    public void streamEnd(@Nullable List<? extends Header> trailers) {}

    @Override
    public void releaseResources() {}

    @Override
    public void completed() {}

    @Override
    public void failed(Exception cause) {}

    @Override
    public String toString() {
      return "discard";
    }
  }

  /** The call ends with the answer: its body goes to the caller's consumer, its end to the caller's callback. */
  static final class Kept implements Target {
    private final @Nullable AsyncDataConsumer consumer;
    private final AsyncExecCallback callback;

    Kept(@Nullable AsyncDataConsumer consumer, AsyncExecCallback callback) {
      this.consumer = consumer;
      this.callback = callback;
    }

    @Override
    public void updateCapacity(CapacityChannel channel) throws IOException {
      if (consumer != null) {
        consumer.updateCapacity(channel);
      }
    }

    @Override
    public void consume(ByteBuffer src) throws IOException {
      if (consumer != null) {
        consumer.consume(src);
      }
    }

    @Override
    public void streamEnd(@Nullable List<? extends Header> trailers) throws HttpException, IOException {
      if (consumer != null) {
        consumer.streamEnd(trailers);
      }
    }

    @Override
    public void releaseResources() {
      if (consumer != null) {
        consumer.releaseResources();
      }
    }

    @Override
    public void completed() {
      callback.completed();
    }

    @Override
    public void failed(Exception cause) {
      callback.failed(cause);
    }
  }

  private final Consumer<Exception> onLateFailure;
  @GuardedBy("this")
  private final ArrayDeque<Signal> pending = new ArrayDeque<>();
  @GuardedBy("this")
  private @Nullable Target chosen;
  @GuardedBy("this")
  private boolean delivering;

  /** {@code onLateFailure} hears what a target threw on signals handed over by {@link #choose}, off the client's thread. */
  DeferredConsumer(Consumer<Exception> onLateFailure) {
    this.onLateFailure = onLateFailure;
  }

  /** The signals are for {@code target}; the first choice holds. */
  void choose(Target target) {
    synchronized (this) {
      if (chosen != null) {
        return;
      }
      chosen = target;
    }
    Exception failure = drain();
    if (failure != null) {
      onLateFailure.accept(failure);
    }
  }

  @Override
  public void updateCapacity(CapacityChannel channel) throws IOException {
    rethrowIo(signal(target -> target.updateCapacity(channel)));
  }

  @Override
  public void consume(ByteBuffer src) throws IOException {
    Target direct = null;
    synchronized (this) {
      if (chosen != null && !delivering && pending.isEmpty()) {
        delivering = true;
        direct = chosen;
      } else {
        ByteBuffer copy = ByteBuffer.allocate(src.remaining());
        copy.put(src).flip();
        pending.add(target -> target.consume(copy));
      }
    }
    if (direct != null) {
      try {
        direct.consume(src);
      } finally {
        synchronized (this) {
          delivering = false;
        }
      }
    }
    rethrowIo(drain());
  }

  @Override
  public void streamEnd(@Nullable List<? extends Header> trailers) throws HttpException, IOException {
    Exception failure = signal(target -> target.streamEnd(trailers));
    if (failure instanceof HttpException http) {
      throw http;
    }
    rethrowIo(failure);
  }

  @Override
  public void releaseResources() {
    signalQuietly(Target::releaseResources);
  }

  /** A signal that throws nothing: completion, failure, release. */
  void signalQuietly(Signal signal) {
    Exception failure = signal(signal);
    if (failure != null) {
      onLateFailure.accept(failure);
    }
  }

  private @Nullable Exception signal(Signal signal) {
    synchronized (this) {
      pending.add(signal);
    }
    return drain();
  }

  /** Hands the pending signals to the target, if it is chosen and nobody else does; the first failure, if any. */
  private @Nullable Exception drain() {
    while (true) {
      Target target;
      Signal next;
      synchronized (this) {
        if (delivering || chosen == null || pending.isEmpty()) {
          return null;
        }
        delivering = true;
        target = chosen;
        next = pending.poll();
      }
      try {
        next.to(target);
      } catch (HttpException | IOException | RuntimeException e) {
        return e;
      } finally {
        synchronized (this) {
          delivering = false;
        }
      }
    }
  }

  private static void rethrowIo(@Nullable Exception failure) throws IOException {
    if (failure == null) {
      return;
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw new IOException(failure);
  }

  @Override
  public synchronized String toString() {
    return "DeferredConsumer{chosen=" + chosen + ", pending=" + pending.size() + "}";
  }
}
