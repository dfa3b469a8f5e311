package io.hostpace.spring;

import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What an attempt's failure tells the timeout policy (SPEC D3), for both of Spring's adapters.
 * Spring's clients run over an HTTP client the application chooses (the JDK's, HttpClient 5,
 * Reactor Netty), and hand its exceptions on as causes of their own; the engine asks about each
 * exception of the chain ({@link Exchange#outcomeOf}). The JDK client's timeouts are judged by
 * their types; those of HttpClient 5 and Netty, which this module does not depend on, by their
 * classes when they are on the class path. The JDK's own types are the default's to judge.
 */
final class ClientFailures {

  /** HttpClient 5's connect timeout: an {@code InterruptedIOException}, but the endpoint was not reached. */
  private static final @Nullable Class<?> HTTPCLIENT5_CONNECT_TIMEOUT = load("org.apache.hc.client5.http.ConnectTimeoutException");
  /** Netty's read and write timeouts. */
  private static final @Nullable Class<?> NETTY_TIMEOUT = load("io.netty.handler.timeout.TimeoutException");
  /** Netty's DNS resolver giving up. */
  private static final @Nullable Class<?> NETTY_DNS_TIMEOUT = load("io.netty.resolver.dns.DnsNameResolverTimeoutException");

  private ClientFailures() {}

  static @Nullable Outcome outcomeOf(Throwable failure, Function<Throwable, @Nullable Outcome> otherwise) {
    if (failure instanceof HttpConnectTimeoutException || is(HTTPCLIENT5_CONNECT_TIMEOUT, failure)) {
      return Outcome.UNREACHABLE;
    }
    if (failure instanceof HttpTimeoutException || is(NETTY_TIMEOUT, failure) || is(NETTY_DNS_TIMEOUT, failure)) {
      return Outcome.TIMED_OUT;
    }
    return otherwise.apply(failure);
  }

  private static boolean is(@Nullable Class<?> type, Throwable failure) {
    return type != null && type.isInstance(failure);
  }

  private static @Nullable Class<?> load(String className) {
    try {
      return Class.forName(className, false, ClientFailures.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }
}
