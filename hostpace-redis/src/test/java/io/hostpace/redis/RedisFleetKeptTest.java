package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.spi.Fleet.Kept;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * SPEC S3 on a real Redis: what one process keeps of a host another reads, with what is left of
 * its pause and full window as of Redis's clock; it expires, is forgotten, and a later release's
 * text reads as nothing kept.
 */
class RedisFleetKeptTest extends OnRealRedis {

  static final long SECOND = 1_000_000_000L;
  static final long HOUR = 3600 * SECOND;

  static @Nullable Kept recall(RedisFleet fleet, String key) throws Exception {
    CompletableFuture<Kept> answer = new CompletableFuture<>();
    AtomicInteger answers = new AtomicInteger();
    fleet.recall(key, kept -> {
      answers.incrementAndGet();
      answer.complete(kept);
    });
    Kept kept = answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(answers).hasValue(1);
    return kept;
  }

  /**
   * Asserts that {@code nanos} is what a reader at an instant of Redis's clock between
   * {@code before} and {@code after} reads is left of the announced window (of {@code windowMicros})
   * kept as reset at {@code resetAt}, less than a window after the keep: until the reset, or past
   * it, until the end of the window of that instant, windows following one another whole from the
   * reset. Exact for any such instant, however long the test's thread paused between the readings.
   */
  static void assertResetLeft(long nanos, long resetAt, long windowMicros, long before, long after) {
    assertThat(nanos % 1000).as("whole microseconds").isZero();
    long left = nanos / 1000;
    assertThat(left).as("left of a window of %d µs", windowMicros).isBetween(1L, windowMicros);
    // What is left at an instant is the left of the instants resetAt - left + k * windowMicros, k
    // whole: one of them lies between the readings.
    assertThat(Math.floorMod(resetAt - left - before, windowMicros))
        .as("%d µs left of a window reset at %d, read between %d and %d", left, resetAt, before, after)
        .isLessThanOrEqualTo(after - before);
  }

  /** Keeps {@code kept} through {@code fleet} and waits until Redis has it (one connection keeps its order). */
  static void keepAndWait(RedisFleet fleet, String key, Kept kept, long keepFor) throws Exception {
    fleet.keep(key, kept, keepFor);
    recall(fleet, key);
  }

  @Test
  void S3_whatOneProcessKeepsAnotherReadsWithWhatIsLeftOfItsPauseAndFullWindow() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    Kept kept = new Kept(1_000_000_000L, 3, 60, 60 * SECOND, 40 * SECOND, 30 * SECOND);
    long beforeKeep = redisMicros();
    keepAndWait(a, "qlever.dev", kept, HOUR);

    long beforeRecall = redisMicros();
    Kept read = recall(b, "qlever.dev");
    long ttl = redis().pttl(new RedisKeys(fleetName).kept("qlever.dev"));
    long after = redisMicros();
    assertThat(read).isNotNull();
    assertThat(read.intervalNanos()).isEqualTo(1_000_000_000L);
    assertThat(read.inFlightLimit()).isEqualTo(3);
    assertThat(read.quotaPermits()).isEqualTo(60);
    assertThat(read.quotaWindowNanos()).isEqualTo(60 * SECOND);
    String stored = redis().get(new RedisKeys(fleetName).kept("qlever.dev"));
    assertThat(stored).startsWith(KeptScripts.VERSION + "\t1000000\t3\t60\t60000000\t");
    // Kept as instants of Redis's clock, 40 s and 30 s after the keep; read as what is left of them
    // when the recall ran.
    long fullUntil = Long.parseLong(stored.split("\t")[5]);
    long pausedUntil = Long.parseLong(stored.split("\t")[6]);
    assertThat(fullUntil).isBetween(beforeKeep + 40_000_000, beforeRecall + 40_000_000);
    assertThat(pausedUntil).isEqualTo(fullUntil - 10_000_000);
    assertLeftUntil(read.quotaFullForNanos(), fullUntil, beforeRecall, after);
    assertLeftUntil(read.pauseLeftNanos(), pausedUntil, beforeRecall, after);
    assertPttl(ttl, 3_600_000, beforeKeep, after);
  }

  @Test
  void S3_nothingKeptReadsAsNullAndKeepingNothingForgetsWhatWasKept() throws Exception {
    RedisFleet a = process();
    assertThat(recall(a, "never.test")).isNull();

    keepAndWait(a, "once.test", new Kept(5 * SECOND, 0, 0, 0, 0, 0), HOUR);
    assertThat(recall(a, "once.test")).isNotNull();
    keepAndWait(a, "once.test", Kept.NOTHING, HOUR);
    assertThat(recall(a, "once.test")).isNull();
    assertThat(redis().exists(new RedisKeys(fleetName).kept("once.test"))).isZero();
  }

  @Test
  void S3_whatIsKeptExpiresAfterItsKeepForRoundedUpToAMillisecond() throws Exception {
    RedisFleet a = process();
    // A minute and a nanosecond: 60,001 ms.
    long before = redisMicros();
    keepAndWait(a, "brief.test", new Kept(5 * SECOND, 0, 0, 0, 0, 0), 60 * SECOND + 1);
    long left = redis().pttl(new RedisKeys(fleetName).kept("brief.test"));
    assertPttl(left, 60_001, before, redisMicros());
  }

  @Test
  void S3_R8_anAnnouncedQuotaIsKeptWithItsWindowAndReadAsOfTheWindowOfTheReader() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    long beforeKeep = redisMicros();
    keepAndWait(a, "api.test", new Kept(8_000_000L, 0, 0, 0, 0, 0, 10, 5 * SECOND, 2 * SECOND), HOUR);

    long beforeRecall = redisMicros();
    Kept read = recall(b, "api.test");
    long after = redisMicros();
    assertThat(read).isNotNull();
    assertThat(read.announcedLimit()).isEqualTo(10);
    assertThat(read.announcedWindowNanos()).isEqualTo(5 * SECOND);
    String key = new RedisKeys(fleetName).kept("api.test");
    assertThat(redis().get(key)).startsWith(KeptScripts.ANNOUNCED_VERSION + "\t8000\t0\t0\t0\t0\t0\t10\t5000000\t");
    String[] fields = redis().get(key).split("\t");
    long resetAt = Long.parseLong(fields[9]);
    assertThat(resetAt).as("2 s after the keep, on Redis's clock").isBetween(beforeKeep + 2_000_000, beforeRecall + 2_000_000);
    assertResetLeft(read.announcedResetNanos(), resetAt, 5_000_000, beforeRecall, after);

    // Kept with a window that reset 12 s ago (on Redis's clock): read as 2 s into the third window after
    resetAt = redisMicros() - 12_000_000L;
    fields[9] = Long.toString(resetAt);
    redis().set(key, String.join("\t", fields));
    beforeRecall = redisMicros();
    Kept rolled = recall(b, "api.test");
    after = redisMicros();
    assertThat(rolled).isNotNull();
    assertResetLeft(rolled.announcedResetNanos(), resetAt, 5_000_000, beforeRecall, after);

    // a host that announces no starts a window is kept as an earlier release reads it
    keepAndWait(a, "plain.test", new Kept(8_000_000L, 0, 0, 0, 0, 0), HOUR);
    assertThat(redis().get(new RedisKeys(fleetName).kept("plain.test"))).startsWith(KeptScripts.VERSION + "\t8000\t");
  }

  @Test
  void S3_aLaterReleasesTextOrTextThatDoesNotReadIsNothingKept() throws Exception {
    RedisFleet a = process();
    redis().set(new RedisKeys(fleetName).kept("newer.test"), "3\t1000000\t0\t0\t0\t0\t0\textra");
    redis().set(new RedisKeys(fleetName).kept("short.test"), "2\t1000000\t0\t0\t0\t0\t0\t10\t5000000");
    redis().set(new RedisKeys(fleetName).kept("junk.test"), "1\tfast\t0\t0\t0\t0\t0");
    redis().set(new RedisKeys(fleetName).kept("negative.test"), "1\t-5\t0\t0\t0\t0\t0");

    assertThat(recall(a, "newer.test")).isNull();
    assertThat(recall(a, "short.test")).isNull();
    assertThat(recall(a, "junk.test")).isNull();
    assertThat(recall(a, "negative.test")).isNull();
  }

  @Test
  void S3_aRecallIsAnsweredOnceOnAnotherThreadAndNullOnceTheFleetIsClosed() throws Exception {
    RedisFleet a = process();
    assertAnsweredOnceOnAnotherThread(a, then -> a.recall("any.test", kept -> then.accept(0)));

    RedisFleet closed = process();
    closed.close();
    AtomicReference<Thread> on = new AtomicReference<>();
    CompletableFuture<Kept> answer = new CompletableFuture<>();
    closed.recall("any.test", kept -> {
      on.set(Thread.currentThread());
      answer.complete(kept);
    });
    assertThat(answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isNull();
    assertThat(on.get()).isNotSameAs(Thread.currentThread());
    assertThat(closed.recallsUnanswered()).isEqualTo(1);
    closed.keep("any.test", new Kept(SECOND, 0, 0, 0, 0, 0), HOUR);
    assertThat(closed.keepsLost()).isEqualTo(1);
  }

  @Test
  void S3_badArgumentsAreNamed() {
    RedisFleet a = process();
    assertThatThrownBy(() -> a.keep("", Kept.NOTHING, HOUR)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host's key");
    assertThatThrownBy(() -> a.keep("a.test", Kept.NOTHING, -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepForNanos");
    assertThatThrownBy(() -> a.recall("", kept -> {})).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host's key");
    assertThatThrownBy(() -> new Kept(0, 0, 3, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits and its window");
    assertThat(KeptScripts.read(List.of("1\t1\t0\t0\t0\t0\t0"))).as("no time").isNull();
  }
  static @Nullable Kept recallOrKeep(RedisFleet fleet, String key, Kept kept) throws Exception {
    CompletableFuture<Kept> answer = new CompletableFuture<>();
    fleet.recallOrKeep(key, kept, HOUR, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void S4_theFirstToRejoinAnEmptyFleetKeepsWhatItHeldEvenNothingAndTheOthersReadThat() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    RedisFleet c = process();
    Kept learned = new Kept(800_000_000L, 0, 0, 0, 0, 0);

    // Three processes rejoin a Redis back empty: the first held nothing learned of the host as
    // Redis was lost (paced by a configured rate alone), the second 800 ms. Each reads the
    // first's nothing, an answer: not null, which would say Redis could not be asked.
    long before = redisMicros();
    assertThat(recallOrKeep(a, "paced.test", Kept.NOTHING)).as("the first's own nothing").isEqualTo(Kept.NOTHING);
    assertThat(recallOrKeep(b, "paced.test", learned)).as("the first's nothing, read").isEqualTo(Kept.NOTHING);
    assertThat(recall(c, "paced.test")).as("a newcomer reads nothing").isEqualTo(Kept.NOTHING);
    long left = redis().pttl(new RedisKeys(fleetName).kept("paced.test"));
    assertPttl(left, 3_600_000, before, redisMicros()); // kept by the first, an hour

    // Into an empty key the first keeps what it held, and the others read that.
    assertThat(recallOrKeep(b, "learned.test", learned)).isEqualTo(learned);
    assertThat(recallOrKeep(a, "learned.test", Kept.NOTHING)).isEqualTo(learned);
    assertThat(a.recallsUnanswered() + b.recallsUnanswered()).isZero();
  }

  @Test
  void S3_S4_aRejoinOverALaterReleasesTextReadsNothingKeptAndGoesOnFromWhatItHeld() throws Exception {
    RedisFleet a = process();
    String key = new RedisKeys(fleetName).kept("newer.test");
    String later = (Integer.parseInt(KeptScripts.ANNOUNCED_VERSION) + 1) + "\t1000000\t0\t0\t0\t0\t0\tmore";
    redis().set(key, later);
    Kept held = new Kept(800_000_000L, 0, 0, 0, 0, 0);

    // A format above the one this release writes: nothing kept that it reads. The rejoin is
    // answered what this process held, as the first to rejoin an empty fleet is, not null (which
    // says Redis could not be asked, and has the engine ask again); the later text stays, and so
    // does the answer at each rejoin.
    assertThat(recall(a, "newer.test")).as("a newcomer's read").isNull();
    assertThat(recallOrKeep(a, "newer.test", held)).as("a rejoin's read").isEqualTo(held);
    assertThat(recallOrKeep(a, "newer.test", Kept.NOTHING)).as("another's, holding nothing").isEqualTo(Kept.NOTHING);
    assertThat(a.recallsUnanswered()).isZero();
    assertThat(redis().get(key)).isEqualTo(later);
  }
}
