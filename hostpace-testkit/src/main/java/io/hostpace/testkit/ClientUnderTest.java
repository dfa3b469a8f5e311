package io.hostpace.testkit;

import java.util.Objects;

/**
 * An {@link AdapterUnderTest} that is told its client's failure types once, in its constructor,
 * instead of answering them in two methods of its own.
 */
public abstract class ClientUnderTest implements AdapterUnderTest {

  private final Class<? extends Throwable> networkFailure;
  private final Class<? extends Throwable> timeoutFailure;

  /** A client that raises {@code networkFailure} on a reset connection and {@code timeoutFailure} at its own timeout. */
  protected ClientUnderTest(Class<? extends Throwable> networkFailure, Class<? extends Throwable> timeoutFailure) {
    this.networkFailure = Objects.requireNonNull(networkFailure, "networkFailure");
    this.timeoutFailure = Objects.requireNonNull(timeoutFailure, "timeoutFailure");
  }

  @Override
  public final Class<? extends Throwable> networkFailure() {
    return networkFailure;
  }

  @Override
  public final Class<? extends Throwable> timeoutFailure() {
    return timeoutFailure;
  }
}
