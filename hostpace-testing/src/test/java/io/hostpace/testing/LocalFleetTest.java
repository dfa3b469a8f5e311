package io.hostpace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.VirtualTime;
import io.hostpace.spi.Fleet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-JVM fleet the simulator and the tests run SPEC S2 on. */
class LocalFleetTest {

  final VirtualTime time = VirtualTime.create();
  final LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(10));

  @Test
  void aLessonReachesTheOtherMembersAfterTheLatencyAndNotItsTeller() {
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    List<String> heard = new ArrayList<>();
    a.listen(lesson -> heard.add("a " + lesson.key()));
    Fleet.Listening bListens = b.listen(lesson -> heard.add("b " + lesson.key()));
    Fleet.Lesson lesson = new Fleet.Lesson("example.org", true, -1, 1_000, 3);
    a.tell(lesson);
    time.advance(Duration.ofMillis(9));
    assertThat(heard).isEmpty();
    time.advance(Duration.ofMillis(1));
    assertThat(heard).containsExactly("b example.org");

    bListens.close();
    a.tell(lesson);
    time.advance(Duration.ofSeconds(1));
    assertThat(heard).containsExactly("b example.org");
  }

  @Test
  void aClaimIsGrantedWhenNoneWasInTheIntervalPerKeyAndAnsweredAfterARoundTrip() {
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    List<String> answers = new ArrayList<>();
    long second = Duration.ofSeconds(1).toNanos();
    long origin = time.nanoTime();
    a.claimStart("x.test", second, delay -> answers.add("a " + delay / 1_000_000 + " at " + (time.nanoTime() - origin) / 1_000_000));
    b.claimStart("x.test", second, delay -> answers.add("b " + delay / 1_000_000 + " at " + (time.nanoTime() - origin) / 1_000_000));
    b.claimStart("y.test", second, delay -> answers.add("y " + delay / 1_000_000 + " at " + (time.nanoTime() - origin) / 1_000_000));
    time.advance(Duration.ofMillis(20));
    assertThat(answers).containsExactly("a 0 at 20", "b 1000 at 20", "y 0 at 20");

    time.advance(Duration.ofMillis(500)); // b was not granted, so nothing was recorded for it: a granted at 10 ms
    b.claimStart("x.test", second, delay -> answers.add("b " + delay / 1_000_000));
    time.advance(Duration.ofMillis(20));
    assertThat(answers).last().isEqualTo("b 480");
    time.advance(Duration.ofMillis(480)); // looked at after 1 s from a's grant
    b.claimStart("x.test", second, delay -> answers.add("b " + delay / 1_000_000));
    time.advance(Duration.ofMillis(20));
    assertThat(answers).last().isEqualTo("b 0");
  }

  @Test
  void S2_aClaimIsHeldToTheShortestIntervalClaimedLatelyWithinASixteenthOfItsOwnAsOnRedis() {
    // The rule of Redis's ClaimScript (RedisFleetTest has it on a real Redis), in virtual time.
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    List<Long> answers = new ArrayList<>();
    long milli = 1_000_000L;
    a.claimStart("fair.test", 10_000 * milli, answers::add); // looked at 10 ms: granted
    time.advance(Duration.ofMillis(100));
    b.claimStart("fair.test", 10_500 * milli, answers::add); // within a sixteenth: told when a's 10 s pass
    time.advance(Duration.ofMillis(100));
    b.claimStart("fair.test", 5_000 * milli, answers::add); // the shortest now
    time.advance(Duration.ofMillis(100));
    a.claimStart("fair.test", 10_000 * milli, answers::add); // slower than it beyond a sixteenth: its own
    time.advance(Duration.ofMillis(100));
    assertThat(answers).containsExactly(0L, 9_900 * milli, 4_800 * milli, 9_700 * milli);

    time.advance(Duration.ofMillis(7_600)); // more than 7.5 s after b's claim of 5 s: that shortest is forgotten
    b.claimStart("fair.test", 10_500 * milli, answers::add); // looked at 8.01 s: held to its own 10.5 s
    time.advance(Duration.ofMillis(20));
    assertThat(answers).last().isEqualTo(2_500 * milli);
  }

  @Test
  void S2_aClaimOfSeveralKeysIsGrantedForAllOrNoneAndAnswersTheLongestWait() {
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    List<Long> answers = new ArrayList<>();
    long second = Duration.ofSeconds(1).toNanos();
    a.claimStart(List.of("*.x.test", "a.x.test"), new long[] {2 * second, second}, answers::add);
    time.advance(Duration.ofMillis(20));
    b.claimStart(List.of("*.x.test", "b.x.test"), new long[] {2 * second, second}, answers::add); // the group is not free
    time.advance(Duration.ofMillis(20));
    b.claimStart("b.x.test", second, answers::add); // nothing was recorded for it
    time.advance(Duration.ofMillis(20));
    assertThat(answers).containsExactly(0L, 2 * second - 20_000_000L, 0L);
    assertThatThrownBy(() -> a.claimStart(List.of("x.test"), new long[] {1, 2}, delay -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("an interval for each");
  }

  @Test
  void placesAreHeldUpToTheLimitAcrossMembersAndLetGoWhenReleased() {
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    List<Long> answers = new ArrayList<>();
    a.claimPlace("gate.test", 1, 2, 0, answers::add);
    b.claimPlace("gate.test", 1, 2, 0, answers::add); // b's place 1 is not a's
    b.claimPlace("gate.test", 2, 2, 0, answers::add);
    a.claimPlace("other.test", 1, 2, 0, answers::add);
    time.advance(Duration.ofMillis(20));
    assertThat(answers).containsExactly(1L, 2L, 0L, 1L);
    assertThat(fleet.placesHeld("gate.test")).isEqualTo(2);

    a.claimPlace("gate.test", 1, 2, 0, answers::add); // held already: counted once
    a.releasePlace("gate.test", 1);
    time.advance(Duration.ofMillis(20));
    assertThat(answers).last().isEqualTo(2L);
    assertThat(fleet.placesHeld("gate.test")).isEqualTo(1);
    b.claimPlace("gate.test", 2, 2, 0, answers::add);
    time.advance(Duration.ofMillis(20));
    assertThat(answers).last().isEqualTo(2L);
  }

  @Test
  void S2_claimsThatWaitForAPlaceAreGrantedInTheirTurnEachALatencyAfterTheReleaseWasLookedAt() {
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    Fleet c = fleet.join();
    List<String> heard = new ArrayList<>();
    a.claimPlace("gate.test", 1, 1, held -> heard.add("a answered " + held), held -> heard.add("a granted " + held));
    time.advance(Duration.ofMillis(1));
    b.claimPlace("gate.test", 1, 1, held -> heard.add("b answered " + held), held -> heard.add("b granted " + held));
    time.advance(Duration.ofMillis(1));
    c.claimPlace("gate.test", 1, 1, held -> heard.add("c answered " + held), held -> heard.add("c granted " + held));
    time.advance(Duration.ofMillis(30));
    assertThat(heard).containsExactly("a answered 1", "b answered -2", "c answered -2"); // Fleet.WAITING

    a.releasePlace("gate.test", 1); // looked at 10 ms later: b, which waited first, is granted, and hears it 10 ms after
    time.advance(Duration.ofMillis(19));
    assertThat(heard).hasSize(3);
    time.advance(Duration.ofMillis(1));
    assertThat(heard).last().isEqualTo("b granted 1");

    c.releasePlace("gate.test", 1); // withdrawn: b's release grants no one
    b.releasePlace("gate.test", 1);
    time.advance(Duration.ofSeconds(1));
    assertThat(heard).hasSize(4);
    assertThat(fleet.placesHeld("gate.test")).isZero();
  }

  @Test
  void S2_aPlaceWithALeaseEndsByItselfThatLongAfterItsGrantUnlessReleasedBefore() {
    Fleet a = fleet.join();
    Fleet b = fleet.join();
    List<Long> answers = new ArrayList<>();
    long minute = Duration.ofMinutes(1).toNanos();
    a.claimPlace("api.test/quota", 1, 2, minute, answers::add); // looked at, and granted, at 10 ms
    b.claimPlace("api.test/quota", 1, 2, minute, answers::add);
    b.claimPlace("api.test/quota", 2, 2, minute, answers::add);
    time.advance(Duration.ofMillis(20));
    assertThat(answers).containsExactly(1L, 2L, 0L);

    b.releasePlace("api.test/quota", 1); // released before its lease ended
    time.advance(Duration.ofMillis(20));
    assertThat(fleet.placesHeld("api.test/quota")).isEqualTo(1);
    time.advance(Duration.ofSeconds(59).plusMillis(969)); // 1 ms before a's lease ends
    assertThat(fleet.placesHeld("api.test/quota")).isEqualTo(1);
    time.advance(Duration.ofMillis(1));
    assertThat(fleet.placesHeld("api.test/quota")).isZero();
    b.claimPlace("api.test/quota", 2, 1, 0, answers::add);
    time.advance(Duration.ofMillis(20));
    assertThat(answers).last().isEqualTo(1L);
  }

  @Test
  void S2_aLeaseThatEndsAtTheClocksLargestValueEndsAsAnyOther() {
    long minute = Duration.ofMinutes(1).toNanos();
    VirtualTime nearTheWrap = VirtualTime.startingAt(Long.MAX_VALUE - minute - Duration.ofMillis(10).toNanos(), Instant.EPOCH);
    LocalFleet wrapping = new LocalFleet(nearTheWrap, nearTheWrap, Duration.ofMillis(10));
    Fleet a = wrapping.join();
    List<Long> answers = new ArrayList<>();
    a.claimPlace("api.test/quota", 1, 1, minute, answers::add); // looked at 10 ms on: held up to Long.MAX_VALUE
    nearTheWrap.advance(Duration.ofMillis(20));
    assertThat(answers).containsExactly(1L);
    assertThat(wrapping.placesHeld("api.test/quota")).isEqualTo(1);

    nearTheWrap.advance(Duration.ofMinutes(1));
    assertThat(wrapping.placesHeld("api.test/quota")).isZero();
  }

  @Test
  void aNegativeLeaseIsRefusedByName() {
    Fleet a = fleet.join();
    assertThatThrownBy(() -> a.claimPlace("api.test/quota", 1, 1, -1, held -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
  }

  @Test
  void aNegativeLatencyIsRefusedByName() {
    assertThatThrownBy(() -> new LocalFleet(time, time, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latency");
  }

  @Test
  void aLessonChecksItsFields() {
    assertThatThrownBy(() -> new Fleet.Lesson("", false, -1, 0, 0)).hasMessageContaining("key");
    assertThatThrownBy(() -> new Fleet.Lesson("a.test", false, -2, 0, 0)).hasMessageContaining("retryAfterNanos");
    assertThatThrownBy(() -> new Fleet.Lesson("a.test", false, -1, -1, 0)).hasMessageContaining("tookNanos");
    assertThatThrownBy(() -> new Fleet.Lesson("a.test", false, -1, 0, -1)).hasMessageContaining("inFlightAtStart");
  }
}
