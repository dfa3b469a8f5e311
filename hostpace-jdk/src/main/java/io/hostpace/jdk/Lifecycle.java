package io.hostpace.jdk;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The lifecycle {@link HttpClient} has since Java 21 ({@code shutdown}, {@code shutdownNow},
 * {@code awaitTermination}, {@code isTerminated}, {@code close}), reached reflectively so that
 * this module compiles for Java 17. The methods are looked up once; on 17 they are absent, the
 * delegate has no lifecycle, and each does what Java 21's {@code HttpClient} does by default:
 * nothing, {@code awaitTermination} answers true, {@code isTerminated} false.
 */
final class Lifecycle {

  private static final @Nullable Method SHUTDOWN = lookUp("shutdown");
  private static final @Nullable Method SHUTDOWN_NOW = lookUp("shutdownNow");
  private static final @Nullable Method AWAIT_TERMINATION = lookUp("awaitTermination", Duration.class);
  private static final @Nullable Method IS_TERMINATED = lookUp("isTerminated");
  private static final @Nullable Method CLOSE = lookUp("close");

  private Lifecycle() {}

  /** Whether the running JDK's {@code HttpClient} has a lifecycle (Java 21 and later). */
  static boolean supported() {
    return CLOSE != null;
  }

  static void shutdown(HttpClient client) {
    if (SHUTDOWN != null) {
      invoke(SHUTDOWN, client);
    }
  }

  static void shutdownNow(HttpClient client) {
    if (SHUTDOWN_NOW != null) {
      invoke(SHUTDOWN_NOW, client);
    }
  }

  static boolean awaitTermination(HttpClient client, Duration duration) throws InterruptedException {
    Objects.requireNonNull(duration, "duration");
    if (AWAIT_TERMINATION == null) {
      return true;
    }
    try {
      return (Boolean) AWAIT_TERMINATION.invoke(client, duration);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof InterruptedException interrupted) {
        throw interrupted;
      }
      throw rethrow(e);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("HttpClient.awaitTermination is public, yet not accessible", e);
    }
  }

  static boolean isTerminated(HttpClient client) {
    return IS_TERMINATED != null && Boolean.TRUE.equals(invoke(IS_TERMINATED, client));
  }

  static void close(HttpClient client) {
    if (CLOSE != null) {
      invoke(CLOSE, client);
    }
  }

  private static @Nullable Method lookUp(String name, Class<?>... parameters) {
    try {
      return HttpClient.class.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      return null; // Java 17 to 20
    }
  }

  private static @Nullable Object invoke(Method method, HttpClient client) {
    try {
      return method.invoke(client);
    } catch (InvocationTargetException e) {
      throw rethrow(e);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("HttpClient." + method.getName() + " is public, yet not accessible", e);
    }
  }

  private static RuntimeException rethrow(InvocationTargetException e) {
    Throwable cause = e.getCause();
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(cause);
  }
}
