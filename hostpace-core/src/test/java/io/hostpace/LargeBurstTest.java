package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FirstContactPropertiesTest.Bucket;
import io.hostpace.FirstContactPropertiesTest.CountingBucket;
import io.hostpace.FirstContactPropertiesTest.Limit;
import io.hostpace.FirstContactPropertiesTest.Load;
import io.hostpace.FirstContactPropertiesTest.Run;
import io.hostpace.FirstContactPropertiesTest.Server;
import io.hostpace.FirstContactPropertiesTest.Window;
import io.hostpace.testing.RefusingServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SPEC R15 through the engine, in virtual time: hosts whose first run was large, a token bucket
 * that holds a large burst and refills slower than its tokens let a client through, and a quota
 * counted in windows of a second, met with calls at once.
 */
class LargeBurstTest {

  /** The refusals of {@code calls} calls at once to a host behind {@code limit}; every call ends accepted. */
  static int refusals(Limit limit, int calls) {
    Run run = SmallQuotaOrBucketTest.played(limit, calls);
    return run.answered - run.accepted;
  }

  @Test
  void R15_aBucketOfTenThatRefillsOneASecondIsPacedAtItsRefillNotAtWhatItsTokensLetThrough() {
    // The gaps of the answers its tokens let through read faster than one a second: paced by them,
    // the rule was refused every few requests; paced by what each cycle between two refusals took,
    // only its probes are.
    assertThat(refusals(new Bucket(1, 10), 150)).isLessThanOrEqualTo(35);
  }

  @Test
  void R15_aBucketOfFifteenThatRefillsOneInTwoSecondsAndCountsRefusalsIsPacedAtItsRefill() {
    assertThat(refusals(new CountingBucket(0.5, 15), 75)).isLessThanOrEqualTo(55);
  }

  @Test
  void R15_aWindowOfASecondMetPartWayInIsPacedBackToTheRateItTookBeforeItsWallNotClimbedFromTheWall() {
    // 30 a second, the client first asking 0.61 s into a window: the wall's probes slow the pace
    // down to find the wall's end. Climbed back from there to what those probes left of the
    // plateau, the 1,200 calls were far from done by 52 s; climbed back to the plateau before the
    // wall, they are done.
    VirtualTime time = VirtualTime.create();
    Server spec = new Server(new Window(30, 1), false, 25, 25);
    RefusingServer host = spec.make(time.nanoTime() - Duration.ofMillis(610).toNanos());
    Run run = new Run(time, host, spec, new Load(1200, 0, 1));

    time.advance(Duration.ofSeconds(52));

    assertThat(run.calls).hasSize(1200).allSatisfy(call -> assertThat(call).isDone());
  }
}
