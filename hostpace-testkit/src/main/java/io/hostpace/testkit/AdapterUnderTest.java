package io.hostpace.testkit;

import java.io.IOException;

/**
 * An HTTP client, paced by a Hostpace engine through its adapter, as {@link AdapterContract}
 * drives it: "send this request through your client; tell me how it ended". One implementation
 * per way of calling the client (blocking, asynchronous), each in a test class of its own.
 *
 * <p>{@link #start} sends {@link TestRequest#method()} to {@link TestRequest#uri()} with the
 * request's headers, its body as the client expresses a replayable or a one-shot body, its
 * timeout as the client's own per-attempt timeout, and its context handed to the engine the
 * client's way. It reads the whole body of the response, whatever the status: a 429 or a 503 is a
 * response like any other, not an exception.
 */
public interface AdapterUnderTest extends AutoCloseable {

  /** Starts sending {@code request}; a blocking client sends on a thread of its own ({@link Pending#onNewThread}). */
  Pending start(TestRequest request);

  /**
   * What the client raises when the server resets the connection: its own exception type,
   * such as {@link IOException} or a wrapper of its own, never a Hostpace type.
   */
  Class<? extends Throwable> networkFailure();

  /** What the client raises when its per-attempt timeout passes before the answer, likewise. */
  Class<? extends Throwable> timeoutFailure();

  /**
   * Whether the client can send a body only once at all. False for a client that holds every
   * body in memory (Spring's {@code RestClient}): then every body is replayable, and the
   * scenario of a one-shot body does not apply.
   */
  default boolean supportsOneShotBodies() {
    return true;
  }

  /**
   * Whether the engine's timeout budget can end an attempt the client is sending (SPEC D1). True
   * for an asynchronous client (the engine cancels the attempt's future) and for a blocking one
   * whose adapter aborts the exchange ({@code Exchange.abort()}); false for a blocking client that
   * cannot be aborted from another thread, whose own timeouts then bound an attempt.
   */
  default boolean abortsAtBudget() {
    return true;
  }

  /**
   * Whether the adapter caps the bodies it reads whole, {@link TestRequest#maxBodyBytes()} saying
   * how far (SPEC T7). False for an adapter that reads no body whole: its caller reads the body,
   * as far as the caller chooses.
   */
  default boolean capsBodies() {
    return false;
  }

  /**
   * Whether the client sends a {@code GET} again by itself, within one attempt, when its
   * connection closes before any answer, and cannot be told not to (the JDK's {@code HttpClient}
   * takes such a connection for one the server had let expire). False for a client whose adapter
   * switches such retries off or leaves them to the engine (SPEC I7).
   */
  default boolean resendsAGetOnAClosedConnection() {
    return false;
  }

  /** Lets the client go after a scenario. */
  @Override
  default void close() throws Exception {}
}
