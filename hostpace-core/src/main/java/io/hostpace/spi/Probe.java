package io.hostpace.spi;

import java.net.URI;

/**
 * The cheap request an adapter names, that the engine sends by itself to tell whether an
 * endpoint it holds down or degraded is up again (SPEC D6): {@code ASK {}} for a SPARQL endpoint,
 * a {@code HEAD} of a plain HTTP server's root. Given to the engine with
 * {@code Hostpace.Builder.probe}, together with a timeout policy that probes.
 *
 * <p>The engine sends the probe through the host's queue like any request: it waits its turn,
 * counts against the host's in-flight limit and rate, and a refusal teaches the host as any
 * does; it is not retried. Its timeout is the policy's probe budget. Its response is let go
 * unread, once its status has been judged by {@link #healthy}.
 */
public interface Probe {

  /**
   * The probe of the endpoint that {@code seen} was sent to: a new exchange, never sent before.
   *
   * @param seen the URI of the endpoint's latest request, which names the endpoint (its host, and
   *     for SPARQL its path)
   * @param userAgent the engine's User-Agent, for a probe that names none of its own
   */
  Exchange<?> exchange(URI seen, String userAgent);

  /**
   * Whether an answer with {@code status} says the endpoint is up and answering: what ends the
   * endpoint's reduced state. A 2xx or 3xx unless the probe says otherwise.
   */
  default boolean healthy(int status) {
    return status >= 200 && status < 400;
  }
}
