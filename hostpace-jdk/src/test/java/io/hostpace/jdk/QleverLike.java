package io.hostpace.jdk;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Plays QLever's Wikidata endpoint as the seed saw it: one request a second; any sooner is
 * refused with a bare 429, without {@code Retry-After}. (The second is measured with 100 ms of
 * slack, for the network between the engine's clock and this one.)
 */
final class QleverLike implements TestServer.Handler {

  static final Duration INTERVAL = Duration.ofMillis(900);

  private long lastAdmitted;
  private boolean admittedAny;
  /** Each answer: "0.012 /q/3 429". */
  final List<String> answers = new CopyOnWriteArrayList<>();

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException {
    boolean admit;
    synchronized (this) {
      long now = System.nanoTime();
      admit = !admittedAny || now - lastAdmitted >= INTERVAL.toNanos();
      if (admit) {
        admittedAny = true;
        lastAdmitted = now;
      }
    }
    int status = admit ? 200 : 429;
    answers.add(request + " " + status);
    TestServer.reply(exchange, status, admit ? "results of " + request.path() : "Too Many Requests");
  }

  long refusals() {
    return answers.stream().filter(a -> a.endsWith(" 429")).count();
  }
}
