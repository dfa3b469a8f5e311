package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FirstContactPropertiesTest.CountingBucket;
import io.hostpace.FirstContactPropertiesTest.Limit;
import io.hostpace.FirstContactPropertiesTest.Load;
import io.hostpace.FirstContactPropertiesTest.Run;
import io.hostpace.FirstContactPropertiesTest.Server;
import io.hostpace.FirstContactPropertiesTest.Window;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC R11 through the engine, in virtual time: a quota of a few a window, learned from a wall, is
 * a fixed window's or a token bucket's (one that counts refusals against the client, its debt's
 * walls read as windows), and the quota's try of one more, alone after a window's starts, tells
 * them apart. Calls at once, answered after 10 to 12 ms, every one ending accepted.
 */
class SmallQuotaOrBucketTest {

  /** A run of {@code calls} calls at once to a host behind {@code limit}, played until every call ended accepted. */
  static Run played(Limit limit, int calls) {
    Run run = new Run(new Server(limit, false, 10, 12), new Load(calls, 0, 1));
    while (run.calls.size() < calls || !run.calls.stream().allMatch(CompletableFuture::isDone)) {
      run.time.advance(Duration.ofMillis(100));
    }
    assertThat(run.calls).hasSize(calls).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
    return run;
  }

  @Test
  void R11_aWindowOfThreeIsHeldToItsQuotaItsTryOfOneMoreRefusedAlone() {
    // 3 each 10 s: 60 calls take 190 s at the least.
    Run run = played(new Window(3, 10), 60);
    assertThat(run.answered - run.accepted).isLessThanOrEqualTo(20);
    assertThat(run.time.elapsed()).isLessThan(Duration.ofSeconds(200));
  }

  @Test
  void R11_aBucketOfThreeThatCountsRefusalsIsNotPacedByTheBurstsOfTheWindowsItsDebtLookedLike() {
    // Half a second, a burst of 3: 100 calls take 197 s at the least. The debt's walls read as a
    // window of 3, whose burst the bucket refused; paced then by that burst's gaps (starts a
    // millisecond apart, read as a rate far above the host's) and cut by 0.7 a refusal, it was
    // refused again and again, deeper into debt. Those gaps are no rate; nothing is measured.
    Run run = played(new CountingBucket(0.5, 3), 100);
    assertThat(run.answered - run.accepted).isLessThanOrEqualTo(60);
    assertThat(run.time.elapsed()).isLessThan(Duration.ofSeconds(330));
  }

  @Test
  void R15_aBucketOfThreeThatCountsRefusalsWhoseDebtReadAsWindowsIsMeasuredOverItsCycles() {
    // One a second, a burst of 3: 300 calls take 298 s at the least. Once the quota its debt's walls
    // taught ended, the gaps of the answers its three stored tokens let through read faster than it
    // refills: paced by them, each probe for more was refused, and refused again for the debt, with
    // the next probe soon after. Measured over its cycles between refusals, as a bucket its quota's
    // try showed is, its probes come ever more rarely.
    Run run = played(new CountingBucket(1, 3), 300);
    assertThat(run.answered - run.accepted).isLessThanOrEqualTo(30);
    assertThat(run.time.elapsed()).isLessThan(Duration.ofSeconds(340));
  }

  @Test
  void R11_aBucketOfSevenThatCountsRefusalsIsNotHeldToTheWindowItsDebtsWallLookedLike() {
    // One a second, a burst of 7: 100 calls take 93 s at the least. A try sent with the window's
    // starts is refused by the bucket those starts emptied, as a window's would be.
    Run run = played(new CountingBucket(1, 7), 100);
    assertThat(run.time.elapsed()).isLessThan(Duration.ofSeconds(135));
    assertThat(run.answered - run.accepted).isLessThanOrEqualTo(40);
  }
}
