package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.Exchange;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * SPEC P14: threads calling many hosts at once, each call going the local path or the lock's as its host
 * allows, while another thread takes snapshots and forgets hosts: nothing is lost or sent twice,
 * no host has more in flight than its limit, and every host ends with nothing in flight or
 * waiting. What is checked is counted, never timed; which interleavings happen is up to the
 * machine, so a fault shows in some runs and not others, but a failure is always a fault.
 */
class LocalPathConcurrencyTest {

  static final int THREADS = 4;
  static final int CALLS_EACH = 4_000;
  static final int HOSTS = 64;
  /** Hosts below this one get the calls that are cancelled; the others' places are counted. */
  static final int CANCELLED_HOSTS = 8;
  static final int IN_FLIGHT = 2;

  enum Kind { AT_ONCE, LATER, FAILED, HELD }

  /** What the fake server saw: each host's attempts in flight now and at most, and each call's sends. */
  static final class Server {
    final AtomicIntegerArray inFlight = new AtomicIntegerArray(HOSTS);
    final AtomicIntegerArray most = new AtomicIntegerArray(HOSTS);
    final ExecutorService answering = Executors.newFixedThreadPool(2);

    void began(int host) {
      int now = inFlight.incrementAndGet(host);
      most.accumulateAndGet(host, now, Math::max);
    }

    void ended(int host) {
      inFlight.decrementAndGet(host);
    }
  }

  static final class CountedExchange implements Exchange<Integer> {
    final Server server;
    final int host;
    final Kind kind;
    final URI uri;
    final AtomicInteger sends = new AtomicInteger();

    CountedExchange(Server server, int host, Kind kind) {
      this.server = server;
      this.host = host;
      this.kind = kind;
      this.uri = URI.create("http://h" + host + ".local.test/resource");
    }

    @Override
    public URI uri() {
      return uri;
    }

    @Override
    public String method() {
      return "GET";
    }

    @Override
    public boolean canResend() {
      return true;
    }

    @Override
    public CompletableFuture<Integer> send() {
      sends.incrementAndGet();
      switch (kind) {
        case AT_ONCE -> {
          server.began(host);
          server.ended(host);
          return CompletableFuture.completedFuture(200);
        }
        case LATER -> {
          server.began(host);
          CompletableFuture<Integer> answer = new CompletableFuture<>();
          server.answering.execute(() -> {
            server.ended(host); // before the answer, which frees the engine's place
            answer.complete(200);
          });
          return answer;
        }
        case FAILED -> {
          server.began(host);
          server.ended(host);
          return CompletableFuture.failedFuture(new IOException("refused by the test"));
        }
        default -> {
          return new CompletableFuture<>(); // HELD: answered never; its caller cancels it
        }
      }
    }

    @Override
    public int status(Integer response) {
      return response;
    }

    @Override
    public @Nullable String header(Integer response, String name) {
      return null;
    }

    @Override
    public void discard(Integer response) {}
  }

  record Sent(CountedExchange exchange, CompletableFuture<Integer> future) {}

  @Test
  void threadsCallingHostsAtOnceLoseNothingSendNothingTwiceAndKeepEachLimit() throws Exception {
    AtomicInteger started = new AtomicInteger();
    Hostpace engine = Hostpace.builder().limitsForEveryHost(Limits.inFlight(IN_FLIGHT))
        .addListener(event -> {
          if (event instanceof HostpaceEvent.Started) {
            started.incrementAndGet();
          }
        })
        .build();
    Server server = new Server();
    List<List<Sent>> sentByThread = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (int t = 0; t < THREADS; t++) {
      List<Sent> sent = new ArrayList<>(CALLS_EACH);
      sentByThread.add(sent);
      Random random = new Random(t);
      threads.add(new Thread(() -> {
        awaitQuietly(go);
        for (int i = 0; i < CALLS_EACH; i++) {
          int roll = random.nextInt(100);
          Kind kind = roll < 60 ? Kind.AT_ONCE : roll < 85 ? Kind.LATER : roll < 92 ? Kind.FAILED : Kind.HELD;
          int host = kind == Kind.HELD ? random.nextInt(CANCELLED_HOSTS) : CANCELLED_HOSTS + random.nextInt(HOSTS - CANCELLED_HOSTS);
          CountedExchange exchange = new CountedExchange(server, host, kind);
          CompletableFuture<Integer> future = engine.execute(exchange);
          if (kind == Kind.HELD) {
            future.cancel(true);
          }
          sent.add(new Sent(exchange, future));
        }
      }, "caller-" + t));
    }
    AtomicBoolean calling = new AtomicBoolean(true);
    AtomicInteger looks = new AtomicInteger();
    Thread meddler = new Thread(() -> {
      awaitQuietly(go);
      Random random = new Random(99);
      while (calling.get()) {
        engine.snapshot();
        engine.forget("h" + random.nextInt(HOSTS) + ".local.test");
        looks.incrementAndGet();
      }
    }, "meddler");
    threads.forEach(Thread::start);
    meddler.start();
    go.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    calling.set(false);
    meddler.join();

    List<Sent> all = new ArrayList<>();
    sentByThread.forEach(all::addAll);
    try {
      // Only to report a lost call rather than hang: every call is answered within the test's own work.
      CompletableFuture.allOf(all.stream().map(Sent::future).toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    } catch (TimeoutException | ExecutionException e) {
      // failed and cancelled calls end allOf exceptionally once all are done; a timeout leaves some not done
    }
    server.answering.shutdown();
    assertThat(all.stream().filter(sent -> !sent.future().isDone()).count()).as("calls never completed").isZero();

    List<String> problems = new ArrayList<>();
    for (Sent sent : all) {
      CountedExchange exchange = sent.exchange();
      CompletableFuture<Integer> future = sent.future();
      int sends = exchange.sends.get();
      switch (exchange.kind) {
        case AT_ONCE, LATER -> {
          if (future.isCompletedExceptionally() || future.join() != 200 || sends != 1) {
            problems.add(exchange.kind + " to h" + exchange.host + ": " + future + " after " + sends + " sends");
          }
        }
        case FAILED -> {
          if (!future.isCompletedExceptionally() || future.isCancelled() || sends < 1) {
            problems.add("FAILED to h" + exchange.host + ": " + future + " after " + sends + " sends");
          }
        }
        case HELD -> {
          if (!future.isCancelled() || sends > 1) {
            problems.add("HELD to h" + exchange.host + ": " + future + " after " + sends + " sends");
          }
        }
      }
    }
    assertThat(problems).as("calls that did not end as their server said").isEmpty();
    for (int host = CANCELLED_HOSTS; host < HOSTS; host++) {
      assertThat(server.most.get(host)).as("the most in flight at once to h" + host).isBetween(1, IN_FLIGHT);
    }
    for (HostSnapshot host : engine.snapshot()) {
      assertThat(host.inFlight()).as("in flight at the end: " + host).isZero();
      assertThat(host.waiting()).as("waiting at the end: " + host).isZero();
    }
    assertThat(engine.localStarts()).as("calls started on the local path").isPositive();
    assertThat(engine.readinessChecks()).as("heads looked at, of which the local path's").isGreaterThan(engine.localStarts());
    assertThat(looks.get()).as("snapshots and forgets taken meanwhile").isPositive();
    long answered = all.stream().filter(sent -> sent.exchange().kind == Kind.AT_ONCE || sent.exchange().kind == Kind.LATER).count();
    assertThat(started.get()).as("starts the listener heard, at least one for each call answered").isGreaterThanOrEqualTo((int) answered);
    engine.close();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
