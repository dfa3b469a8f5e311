package io.hostpace.testing;

import io.hostpace.Timer;
import io.hostpace.spi.Exchange;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * An exchange whose attempts a script answers, to drive the engine without a network: the
 * script is given each attempt's number, from 1, and returns the attempt's future, answered at
 * once or later ({@link #after} answers it on a timer, such as a {@link io.hostpace.VirtualTime}).
 * The response is any type whose status and headers the exchange is told how to read; {@link
 * #statuses} makes one whose response is its status.
 *
 * <pre>{@code
 * VirtualTime time = VirtualTime.create();
 * ScriptedExchange<Integer> exchange = ScriptedExchange.statuses("http://a.test/")
 *     .answers(attempt -> ScriptedExchange.after(time, 50_000_000L, attempt == 1 ? 429 : 200))
 *     .build();
 * engine.execute(exchange);   // at 50 ms a 429, retried; at 100 ms and more its 200
 * }</pre>
 *
 * <p>A test that needs more (a record of what was sent, an attempt that blocks, an abort)
 * extends it, passing its builder to the constructor, and overrides {@link #send()} (the
 * script's answer is {@code super.send()}), {@link #discard} or {@link #abort()}. By default a
 * {@code GET} that can be sent again, with no headers, whose discarded responses are dropped.
 *
 * @param <R> the response type
 */
public class ScriptedExchange<R> implements Exchange<R> {

  /** What the exchange answers each attempt with. */
  @FunctionalInterface
  public interface Script<R> {
    /** The future of attempt {@code number}, from 1. */
    CompletableFuture<R> attempt(int number);
  }

  /** How a response's headers are read. */
  @FunctionalInterface
  public interface Headers<R> {
    /** The first value of header {@code name} (case-insensitive) of {@code response}, or null. */
    @Nullable String header(R response, String name);
  }

  private final URI uri;
  private final String method;
  private final boolean canResend;
  private final ToIntFunction<R> status;
  private final Headers<R> headers;
  private final Script<R> script;
  private final Consumer<R> discarded;
  /** Attempts sent so far, by the script's count. */
  private final AtomicInteger attempts = new AtomicInteger();

  /** An exchange as {@code builder} describes it; for subclasses, which otherwise use {@link Builder#build()}. */
  protected ScriptedExchange(Builder<R> builder) {
    this.uri = builder.uri;
    this.method = builder.method;
    this.canResend = builder.canResend;
    this.status = builder.status;
    this.headers = builder.headers;
    this.script = builder.script;
    this.discarded = builder.discarded;
  }

  /** A builder of an exchange to {@code uri} whose response is its status. */
  public static Builder<Integer> statuses(String uri) {
    return builder(URI.create(uri), Integer::intValue);
  }

  /** A builder of an exchange to {@code uri} whose responses' status {@code status} reads. */
  public static <R> Builder<R> builder(URI uri, ToIntFunction<R> status) {
    return new Builder<>(uri, status);
  }

  /** A script that answers attempt n with the n-th of {@code answers} at once, and every later one with the last. */
  public static <R> Script<R> inTurn(List<R> answers) {
    List<R> copy = List.copyOf(answers);
    return number -> CompletableFuture.completedFuture(copy.get(Math.min(number, copy.size()) - 1));
  }

  /** A future that {@code timer} completes with {@code response} {@code delayNanos} from now. */
  public static <R> CompletableFuture<R> after(Timer timer, long delayNanos, R response) {
    CompletableFuture<R> answer = new CompletableFuture<>();
    timer.schedule(() -> answer.complete(response), delayNanos);
    return answer;
  }

  /** How many attempts the script answered so far. */
  public int attempts() {
    return attempts.get();
  }

  @Override
  public URI uri() {
    return uri;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public boolean canResend() {
    return canResend;
  }

  /** The script's answer to the next attempt. */
  @Override
  public CompletableFuture<R> send() {
    return script.attempt(attempts.incrementAndGet());
  }

  @Override
  public int status(R response) {
    return status.applyAsInt(response);
  }

  @Override
  public @Nullable String header(R response, String name) {
    return headers.header(response, name);
  }

  @Override
  public void discard(R response) {
    discarded.accept(response);
  }

  @Override
  public String toString() {
    return method + " " + uri;
  }

  /** Builds a {@link ScriptedExchange}; each exchange built counts its own attempts. */
  public static final class Builder<R> {
    private final URI uri;
    private final ToIntFunction<R> status;
    private String method = "GET";
    private boolean canResend = true;
    private Headers<R> headers = (response, name) -> null;
    private Script<R> script = number -> {
      throw new IllegalStateException("the exchange has no script: give it one with answers(...)");
    };
    private Consumer<R> discarded = response -> {};

    private Builder(URI uri, ToIntFunction<R> status) {
      this.uri = Objects.requireNonNull(uri, "uri");
      this.status = Objects.requireNonNull(status, "status");
    }

    /** The request's method; {@code GET} unless set. */
    public Builder<R> method(String method) {
      this.method = Objects.requireNonNull(method, "method");
      return this;
    }

    /** Whether the request's body can be sent again (SPEC T4); true unless set. */
    public Builder<R> canResend(boolean canResend) {
      this.canResend = canResend;
      return this;
    }

    /** How the responses' headers are read; none unless set. */
    public Builder<R> headers(Headers<R> headers) {
      this.headers = Objects.requireNonNull(headers, "headers");
      return this;
    }

    /** What each attempt is answered with. */
    public Builder<R> answers(Script<R> script) {
      this.script = Objects.requireNonNull(script, "script");
      return this;
    }

    /** What is done with a response the engine lets go; nothing unless set. */
    public Builder<R> onDiscard(Consumer<R> discarded) {
      this.discarded = Objects.requireNonNull(discarded, "discarded");
      return this;
    }

    /** The exchange. */
    public ScriptedExchange<R> build() {
      return new ScriptedExchange<>(this);
    }
  }
}
