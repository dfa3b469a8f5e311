package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Fleet;
import io.hostpace.testing.LocalFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * SPEC R8 and S3 at a host that announces its quota, 10 starts in fixed windows of 5 s from 0 s
 * ({@code X-RateLimit-Limit/-Remaining/-Reset}, the reset in whole seconds rounded up), and refuses
 * beyond with a bare 429: workers that join a fleet mid-window spend what is left of the window
 * from the fleet's count, and no worker starts its backlog at a reset, whether it heard the host's
 * answers or only read what the fleet keeps.
 */
class FleetAnnouncedWindowTest {

  static final long WINDOW = Duration.ofSeconds(5).toNanos();

  final VirtualTime time = VirtualTime.create();
  final int[] taken = new int[1000];
  final List<String> refused = new ArrayList<>();
  final FakeServer server = new FakeServer(time, exchange -> {
    long at = time.nanoTime() - origin();
    int window = (int) (at / WINDOW);
    boolean accepted = ++taken[window] <= 10;
    if (!accepted) {
      refused.add(server().now() + " " + exchange.uri.getPath());
    }
    long reset = (window + 1) * WINDOW - at;
    return (accepted ? Reply.ok() : Reply.status(429)).after(Duration.ofMillis(50))
        .header("X-RateLimit-Limit", "10")
        .header("X-RateLimit-Remaining", Integer.toString(Math.max(0, 10 - taken[window])))
        .header("X-RateLimit-Reset", Long.toString((reset + 999_999_999L) / 1_000_000_000L));
  });
  final LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));

  FakeServer server() {
    return server;
  }

  long origin() {
    return server.origin();
  }

  /**
   * Workers that join at {@code joinsAt} (seconds from the start of the next window of the host,
   * in order) with {@code urls} requests each, as members of a fleet {@code member} makes, or alone
   * when it is null; once all calls ended (as a fleet, each answered), the refusals.
   */
  int refusals(@Nullable Supplier<Fleet> member, int[] urls, double... joinsAt) {
    refused.clear();
    long base = Math.floorDiv(time.nanoTime() - origin() + WINDOW - 1, WINDOW) * WINDOW;
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int w = 0; w < joinsAt.length; w++) {
      time.advance(Duration.ofNanos(base + Math.round(joinsAt[w] * 1e9) - (time.nanoTime() - origin())));
      Hostpace.Builder engine = Hostpace.builder().time(time);
      if (member != null) {
        engine.fleet(member.get());
      }
      Hostpace worker = engine.build();
      for (int i = 0; i < urls[w]; i++) {
        calls.add(worker.execute(server.get("http://api.test/w" + w + "/" + i)));
      }
    }
    time.runUntilIdle(Duration.ofMinutes(10));
    calls.forEach(call -> assertThat(call).isDone());
    if (member != null) {
      calls.forEach(call -> assertThat(call.join().status()).isEqualTo(200));
    }
    return refused.size();
  }

  @Test
  void S3_R8_aWorkerThatJoinsMidWindowStartsNoMoreThanIsLeftOfTheWindow() {
    // Two workers spend 8 of the first window at once; the third joins at 2.5 s with 25: it reads
    // the announced quota the fleet keeps, and spends from the fleet's count the two left, then
    // the next windows' with the others (SPEC S3), none refused.
    int refusals = refusals(fleet::join, new int[] {4, 4, 25}, 0, 0, 2.5);

    assertThat(server.startTimes("/w2/").stream().filter(at -> Double.parseDouble(at) < 5)).containsExactly(
        "2.504", "2.506"); // the read, then a spend each: 2 ms round trips
    assertThat(refusals).as("refused: %s", refused).isZero();
  }

  @Test
  void S3_R8_workersJoiningMidWindowAsAFleetAreRefusedLessThanAlone() {
    // Four workers of 25: two at 0 s, one at 2.5 s (the window spent: it reads the pause the fleet
    // keeps), one at 6.2 s (the next window begun). Alone each spends the windows as if it were the
    // host's only client; as a fleet they spend them together, the joiners too, and at each reset
    // no worker starts more than the window's 10 before an answer of it says anew.
    int alone = refusals(null, new int[] {25, 25, 25, 25}, 0, 0, 2.5, 6.2);
    int together = refusals(fleet::join, new int[] {25, 25, 25, 25}, 0, 0, 2.5, 6.2);

    assertThat(alone).as("alone").isPositive();
    assertThat(together).as("as a fleet, refused: %s", refused).isLessThan(alone).isZero();
  }

  @Test
  void R8_anEngineThatKnowsTheStartsAWindowStartsNoMoreThanThemAtTheReset() {
    // One engine, 25 requests: 10 in the first window (the opening, then the announced budget),
    // then at each reset 10 more, not its backlog before the window's first answer.
    int refusals = refusals(null, new int[] {25}, 0);

    assertThat(refusals).as("refused: %s", refused).isZero();
    assertThat(server.startTimes("/w0/").stream().filter(at -> Double.parseDouble(at) >= 5
        && Double.parseDouble(at) < 10)).hasSize(10);
  }

  @Test
  void S3_aKeptAnnouncedWindowIsReadAsOfTheWindowOfItsReader() {
    long s = 1_000_000_000L;
    Fleet.Kept kept = new Fleet.Kept(0, 0, 0, 0, 0, 0, 10, 5 * s, 2 * s); // 10 a 5 s window, resetting in 2 s

    assertThat(kept.after(s).announcedResetNanos()).isEqualTo(s);
    assertThat(kept.after(2 * s).announcedResetNanos()).isEqualTo(5 * s); // reset now: the next window whole
    assertThat(kept.after(13 * s).announcedResetNanos()).isEqualTo(4 * s); // two windows on, a second into the third
  }
}
