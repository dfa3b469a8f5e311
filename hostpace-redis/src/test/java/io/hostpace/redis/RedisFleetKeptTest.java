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
    keepAndWait(a, "qlever.dev", kept, HOUR);

    Kept read = recall(b, "qlever.dev");
    assertThat(read).isNotNull();
    assertThat(read.intervalNanos()).isEqualTo(1_000_000_000L);
    assertThat(read.inFlightLimit()).isEqualTo(3);
    assertThat(read.quotaPermits()).isEqualTo(60);
    assertThat(read.quotaWindowNanos()).isEqualTo(60 * SECOND);
    // less a few milliseconds of the round trips, on Redis's clock
    assertThat(read.quotaFullForNanos()).isBetween(35 * SECOND, 40 * SECOND);
    assertThat(read.pauseLeftNanos()).isBetween(25 * SECOND, 30 * SECOND);
    String stored = redis().get(new RedisKeys(fleetName).kept("qlever.dev"));
    assertThat(stored).startsWith(KeptScripts.VERSION + "\t1000000\t3\t60\t60000000\t");
    assertThat(redis().pttl(new RedisKeys(fleetName).kept("qlever.dev"))).isBetween(3_590_000L, 3_600_000L);
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
    // A minute and a nanosecond: 60,001 ms at most, and far from gone by the time it is read.
    keepAndWait(a, "brief.test", new Kept(5 * SECOND, 0, 0, 0, 0, 0), 60 * SECOND + 1);
    assertThat(redis().pttl(new RedisKeys(fleetName).kept("brief.test"))).isBetween(50_000L, 60_001L);
  }

  @Test
  void S3_R8_anAnnouncedQuotaIsKeptWithItsWindowAndReadAsOfTheWindowOfTheReader() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    keepAndWait(a, "api.test", new Kept(8_000_000L, 0, 0, 0, 0, 0, 10, 5 * SECOND, 2 * SECOND), HOUR);

    Kept read = recall(b, "api.test");
    assertThat(read).isNotNull();
    assertThat(read.announcedLimit()).isEqualTo(10);
    assertThat(read.announcedWindowNanos()).isEqualTo(5 * SECOND);
    assertThat(read.announcedResetNanos()).isBetween(SECOND, 2 * SECOND);
    String key = new RedisKeys(fleetName).kept("api.test");
    assertThat(redis().get(key)).startsWith(KeptScripts.ANNOUNCED_VERSION + "\t8000\t0\t0\t0\t0\t0\t10\t5000000\t");

    // Kept with a window that reset 12 s ago (on Redis's clock): read as 2 s into the third window after
    String[] fields = redis().get(key).split("\t");
    long now = Long.parseLong(redis().time().get(0)) * 1_000_000 + Long.parseLong(redis().time().get(1));
    fields[9] = Long.toString(now - 12_000_000L);
    redis().set(key, String.join("\t", fields));
    Kept rolled = recall(b, "api.test");
    assertThat(rolled).isNotNull();
    assertThat(rolled.announcedResetNanos()).isBetween(2 * SECOND, 3 * SECOND);

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
    assertThat(recallOrKeep(a, "paced.test", Kept.NOTHING)).as("the first's own nothing").isEqualTo(Kept.NOTHING);
    assertThat(recallOrKeep(b, "paced.test", learned)).as("the first's nothing, read").isEqualTo(Kept.NOTHING);
    assertThat(recall(c, "paced.test")).as("a newcomer reads nothing").isEqualTo(Kept.NOTHING);
    assertThat(redis().pttl(new RedisKeys(fleetName).kept("paced.test"))).isBetween(3_590_000L, 3_600_000L);

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
