package io.hostpace;

import io.hostpace.timeout.Outcome;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What a failed attempt tells a timeout policy (SPEC D3): our own timeout (slow), an endpoint
 * that could not be reached (refused, reset before the answer, DNS, TLS), or nothing it can use.
 * Reads the client's own exceptions by type and, where clients share no type, by name.
 */
final class Outcomes {

  private Outcomes() {}

  static @Nullable Outcome ofFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String name = t.getClass().getName();
      if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException
          || t instanceof NoRouteToHostException || t instanceof javax.net.ssl.SSLHandshakeException
          || name.endsWith("HttpConnectTimeoutException") || name.endsWith("ConnectTimeoutException")) {
        return Outcome.UNREACHABLE;
      }
      if (t instanceof ConnectException) {
        return Outcome.UNREACHABLE;
      }
      if (t instanceof AttemptTimeoutException || t instanceof InterruptedIOException
          || name.endsWith("HttpTimeoutException") || name.endsWith("TimeoutException")) {
        return Outcome.TIMED_OUT;
      }
      if (t instanceof SocketException) {
        String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
        if (message.contains("reset") || message.contains("refused") || message.contains("closed")) {
          return Outcome.UNREACHABLE;
        }
      }
    }
    return null;
  }
}
