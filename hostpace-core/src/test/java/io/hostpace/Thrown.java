package io.hostpace;

/**
 * What code the engine is given throws, for a test run once with each (SPEC L2): an exception, and
 * an {@code Error}, which the engine handles as it does the exception.
 */
enum Thrown {
  EXCEPTION("an exception") {
    @Override
    Throwable make(String what) {
      return new IllegalStateException(what);
    }
  },
  ERROR("an Error") {
    @Override
    Throwable make(String what) {
      return new AssertionError(what);
    }
  };

  private final String said;

  Thrown(String said) {
    this.said = said;
  }

  /** A new throwable of this kind, with {@code what} its message. */
  abstract Throwable make(String what);

  /** The name of the class of what {@link #make} makes, as a warning says it. */
  String className() {
    return make("").getClass().getName();
  }

  /**
   * Throws {@code thrown}, one that {@link #make} made: unchecked, so a method that may not declare
   * it can write {@code throw Thrown.unchecked(boom)}.
   */
  static RuntimeException unchecked(Throwable thrown) {
    if (thrown instanceof Error error) {
      throw error;
    }
    return (RuntimeException) thrown;
  }

  @Override
  public String toString() {
    return said + " (" + make("").getClass().getSimpleName() + ")";
  }
}
