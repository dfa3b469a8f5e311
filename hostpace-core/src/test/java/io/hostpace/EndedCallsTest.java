package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC P10: memory follows the hosts in use, and a host in use keeps nothing of its requests that
 * ended: a request (and the body it carries) is the caller's to let go once its call is over.
 */
class EndedCallsTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> exchange.uri().getPath().equals("/long")
      ? Reply.ok().after(Duration.ofHours(1))
      : Reply.ok().after(Duration.ofMillis(50)));

  @Test
  void P10_aHostKeptInUseHoldsNothingOfTwoRequestsThatStartedTogetherAndEnded() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    // The host stays in use: a request answered an hour later, started with the two.
    CompletableFuture<Response> kept = engine.execute(server.get("http://kept.test/long"));
    WeakReference<?>[] ended = sendTwoAtOnce(engine);
    time.advance(Duration.ofSeconds(1));

    // A weak reference is cleared by the collection that finds its object unreachable.
    for (int i = 0; i < 20 && (ended[0].get() != null || ended[1].get() != null); i++) {
      System.gc();
    }
    assertThat(ended[0].get()).as("the first request that ended").isNull();
    assertThat(ended[1].get()).as("the second request that ended").isNull();
    assertThat(kept).isNotDone();
    assertThat(engine.snapshot()).anySatisfy(host -> assertThat(host.key()).isEqualTo("kept.test"));
  }

  /** Two more requests to {@code kept.test} that start in the same moment, answered 50 ms later; only weak references kept. */
  private WeakReference<?>[] sendTwoAtOnce(Hostpace engine) {
    FakeServer.FakeExchange first = server.get("http://kept.test/a");
    FakeServer.FakeExchange second = server.get("http://kept.test/b");
    CompletableFuture<Response> a = engine.execute(first);
    CompletableFuture<Response> b = engine.execute(second);
    assertThat(server.maxInFlight.get("kept.test")).isEqualTo(3);
    time.advance(Duration.ofMillis(100));
    assertThat(a.join().status()).isEqualTo(200);
    assertThat(b.join().status()).isEqualTo(200);
    return new WeakReference<?>[] {new WeakReference<>(first), new WeakReference<>(second)};
  }
}
