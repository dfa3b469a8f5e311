package io.hostpace.fuseki;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Puts a {@link Gate} in front of Fuseki, and counts what it let through and what it refused. */
final class GateFilter implements Filter {

  private final Gate gate;
  final AtomicLong requests = new AtomicLong();
  final AtomicLong refusals = new AtomicLong();
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger maxInFlight = new AtomicInteger();

  GateFilter(Gate gate) {
    this.gate = gate;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    requests.incrementAndGet();
    Gate.Admission admission = gate.admit(System.nanoTime());
    if (!admission.admitted()) {
      refusals.incrementAndGet();
      HttpServletResponse http = (HttpServletResponse) response;
      Duration retryAfter = admission.retryAfter();
      if (retryAfter != null) {
        http.setHeader("Retry-After", Long.toString(Math.max(0, (retryAfter.toMillis() + 999) / 1000)));
      }
      http.setStatus(admission.status());
      http.setContentType("text/plain;charset=utf-8");
      http.getOutputStream().write("Too many requests: slow down\n".getBytes(StandardCharsets.UTF_8));
      return;
    }
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    try {
      chain.doFilter(request, response);
    } finally {
      inFlight.decrementAndGet();
      gate.release();
    }
  }
}
