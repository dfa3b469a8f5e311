package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Fleet;
import io.hostpace.testing.LocalFleet;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SPEC L2: a fleet that throws holds no request. What it was told is lost, what it was asked is
 * answered as by a fleet that could not be asked (SPEC S4), and the throw is a warning with its
 * exception. In virtual time, with a fleet a millisecond away.
 */
class FleetThrowsTest {

  final VirtualTime time = VirtualTime.create();
  /** {@code /slow} answers after a second; the rest at once. */
  final FakeServer server = new FakeServer(time,
      exchange -> exchange.uri().getPath().startsWith("/slow") ? Reply.ok().after(Duration.ofSeconds(1)) : Reply.ok());
  final LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));
  final RecordingLogger log = new RecordingLogger(Level.INFO);

  /**
   * A process of {@link #fleet} whose methods named in {@link #throwing} throw {@link #boom}, one of
   * {@link #kind}, and that counts {@link #processes}.
   */
  class Throwing extends ForwardingFleet {
    final Thrown kind;
    final Throwable boom;
    final List<String> throwing;
    final int processes;

    Throwing(Thrown kind, int processes, String... throwing) {
      super(fleet.join());
      this.kind = kind;
      this.boom = kind.make("a fleet's fault");
      this.processes = processes;
      this.throwing = List.of(throwing);
    }

    private void mayThrow(String method) {
      if (throwing.contains(method)) {
        throw Thrown.unchecked(boom);
      }
    }

    /** How a warning of this fleet's throw from {@code method} begins. */
    String threwFrom(String method) {
      return "fleet " + Throwing.class.getName() + " threw " + kind.className() + " from " + method + ";";
    }

    @Override
    public void releasePlace(String key, long place) {
      mayThrow("releasePlace");
      super.releasePlace(key, place);
    }

    @Override
    public void keep(String key, Kept kept, long keepForNanos) {
      mayThrow("keep");
      super.keep(key, kept, keepForNanos);
    }

    @Override
    public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
      mayThrow("announce");
      super.announce(key, remaining, resetNanos, spentBefore, limit, windowNanos);
    }

    @Override
    public boolean keeps() {
      mayThrow("keeps");
      return super.keeps();
    }

    @Override
    public void tell(Lesson lesson) {
      mayThrow("tell");
      super.tell(lesson);
    }

    @Override
    public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
      mayThrow("claimStart");
      super.claimStart(keys, intervalNanos, then);
    }

    @Override
    public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
      mayThrow("claimPlace");
      super.claimPlace(key, place, limit, leaseNanos, then);
    }

    @Override
    public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
      mayThrow("claimPlace");
      member.claimPlace(key, place, limit, then, granted);
    }

    @Override
    public void recall(String key, Consumer<@Nullable Kept> then) {
      mayThrow("recall");
      super.recall(key, then);
    }

    @Override
    public Listening listen(Consumer<Lesson> listener) {
      mayThrow("listen");
      Listening listening = super.listen(listener);
      return () -> {
        listening.close();
        mayThrow("Listening.close");
      };
    }

    @Override
    public int processes() {
      mayThrow("processes");
      return processes;
    }
  }

  Hostpace engine(Fleet member, Limits limits) {
    return Hostpace.builder().widenFirstContact(false).time(time).logger(log)
        .addLimit("shared.test", limits).fleet(member).build();
  }

  List<CompletableFuture<Response>> get(Hostpace engine, String path, int calls) {
    List<CompletableFuture<Response>> started = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      started.add(engine.execute(server.get("http://shared.test" + path + i)));
    }
    return started;
  }

  /** The fleet's throws were one warning, of what it threw, from {@code method}, going on with {@code saying}. */
  void oneWarning(Throwing fleet, String method, String saying) {
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(fleet.boom);
      assertThat(line.message()).startsWith(fleet.threwFrom(method) + saying);
    });
  }

  /** Every call ended with its answer, and the fleet's throws were one warning, naming what it threw and the method. */
  void allAnsweredAndOneWarning(Throwing fleet, List<CompletableFuture<Response>> calls, String method) {
    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    oneWarning(fleet, method, "");
  }

  /** Every call ended with its answer, nothing is held, and each warning is of what the fleet threw. */
  void allAnsweredHoldingNothingAndWarningsOf(Throwing fleet, Hostpace engine, List<CompletableFuture<Response>> calls) {
    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
    assertThat(log.at(Level.WARNING)).isNotEmpty().allSatisfy(line -> {
      assertThat(line.thrown()).isSameAs(fleet.boom);
      assertThat(line.message()).startsWith("fleet " + Throwing.class.getName() + " threw " + fleet.kind.className() + " from ");
    });
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseClaimOfAStartThrowsLeavesEachStartPacedByTheEngineAloneAtItsShare(Thrown thrown) {
    // 2 a second for the fleet, among 2 processes: unclaimed, one start a second from this one.
    Throwing throwing = new Throwing(thrown, 2, "claimStart");
    Hostpace engine = engine(throwing, Limits.rate(Rate.of(2, Duration.ofSeconds(1))));
    List<CompletableFuture<Response>> calls = get(engine, "/r", 4);
    time.advance(Duration.ofSeconds(5));

    // The first once the fleet said what it keeps (a round trip, 2 ms); then each a second and
    // the engine's own fiftieth of it (SPEC P1) after the last, as a start the fleet left unclaimed.
    assertThat(server.startTimes("/r")).containsExactly("0.002", "1.022", "2.042", "3.062");
    allAnsweredAndOneWarning(throwing, calls, "claimStart");
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseClaimOfAPlaceThrowsLeavesTheEngineItsShareOfTheHostsPlaces(Thrown thrown) {
    // 4 in flight for the fleet, among 2 processes: unclaimed, 2 at a time from this one.
    Throwing throwing = new Throwing(thrown, 2, "claimPlace");
    Hostpace engine = engine(throwing, Limits.inFlight(4));
    List<CompletableFuture<Response>> calls = get(engine, "/slow", 5);
    time.advance(Duration.ofSeconds(5));

    // from 2 ms, once the fleet said what it keeps; each pair as the one before is answered
    assertThat(server.startTimes("/slow")).containsExactly("0.002", "0.002", "1.002", "1.002", "2.002");
    allAnsweredAndOneWarning(throwing, calls, "claimPlace");
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseTellThrowsStillEndsEachCallWithItsAnswerAndLetsTheHostGo(Thrown thrown) {
    // one at a time for the fleet: each answer lets the next start, in this process and the fleet
    Throwing throwing = new Throwing(thrown, 1, "tell");
    Hostpace engine = engine(throwing, Limits.inFlight(1));
    List<CompletableFuture<Response>> calls = get(engine, "/slow", 3);
    time.advance(Duration.ofSeconds(5));

    assertThat(server.startTimes("/slow")).hasSize(3);
    allAnsweredAndOneWarning(throwing, calls, "tell");
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
    assertThat(fleet.placesHeld("shared.test")).isZero();
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseRecallThrowsLetsTheHostsFirstStartGoAsIfItKeptNothing(Thrown thrown) {
    Throwing throwing = new Throwing(thrown, 1, "recall");
    Hostpace engine = engine(throwing, Limits.inFlight(4));
    List<CompletableFuture<Response>> calls = get(engine, "/r", 2);
    time.advance(Duration.ofSeconds(1));

    // the recall answered nothing at once, on the engine's timer; then each start after its claim
    // of a place, one claim of the host's at a time, each a round trip (2 ms)
    assertThat(server.startTimes("/r")).containsExactly("0.002", "0.004");
    allAnsweredAndOneWarning(throwing, calls, "recall");
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseListenThrowsIsAnEngineNotBuiltNamingTheFleet(Thrown thrown) {
    Throwing throwing = new Throwing(thrown, 1, "listen");
    assertThatThrownBy(() -> engine(throwing, Limits.inFlight(4)))
        .isInstanceOf(IllegalStateException.class)
        .hasCauseReference(throwing.boom)
        .hasMessageContaining("fleet " + Throwing.class.getName() + " threw " + thrown.className() + " from listen");
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseRegistrationThrowsAsItClosesStillEndsTheCallsThatWaited(Thrown thrown) {
    Throwing throwing = new Throwing(thrown, 1, "Listening.close");
    Hostpace engine = engine(throwing, Limits.inFlight(1));
    List<CompletableFuture<Response>> calls = get(engine, "/slow", 2);
    time.advance(Duration.ofMillis(500));
    assertThatCode(engine::close).doesNotThrowAnyException();

    assertThat(calls.get(1)).isCompletedExceptionally();
    time.advance(Duration.ofSeconds(1));
    assertThat(calls.get(0)).isCompletedWithValueMatching(r -> r.status() == 200);
    oneWarning(throwing, "Listening.close", "");
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetThatThrowsToldOfAnswersHoldsNoRequest(Thrown thrown) {
    // The first refused, which teaches a pace to keep; each answer announces what is left.
    AtomicInteger answers = new AtomicInteger();
    server.script(exchange -> (answers.incrementAndGet() == 1 ? Reply.status(429) : Reply.ok())
        .header("X-RateLimit-Limit", "10").header("X-RateLimit-Remaining", "5").header("X-RateLimit-Reset", "1"));
    Throwing throwing = new Throwing(thrown, 1, "recall", "tell", "keep", "announce");
    Hostpace engine = engine(throwing, Limits.inFlight(1));
    List<CompletableFuture<Response>> calls = get(engine, "/r", 3);
    time.advance(Duration.ofSeconds(5));

    allAnsweredHoldingNothingAndWarningsOf(throwing, engine, calls);
    assertThat(log.messagesAt(Level.WARNING)).anyMatch(line -> line.contains(" from tell;"))
        .anyMatch(line -> line.contains(" from keep;")).anyMatch(line -> line.contains(" from announce;"));
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetWhoseReleaseThrowsLosesTheReleaseAndStillEndsTheCall(Thrown thrown) {
    Throwing throwing = new Throwing(thrown, 1, "releasePlace");
    Hostpace engine = engine(throwing, Limits.inFlight(1));
    List<CompletableFuture<Response>> calls = get(engine, "/slow", 1);
    time.advance(Duration.ofSeconds(5));

    assertThat(calls).singleElement().satisfies(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    oneWarning(throwing, "releasePlace", " the release was lost");
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetThatThrowsAskedForStartsOrCountedLeavesEachStartPacedByTheEngineAlone(Thrown thrown) {
    // 2 a second for the fleet, among the 1 process it last counted (it never answered): unclaimed, 2 a second.
    Throwing throwing = new Throwing(thrown, 2, "claimStart", "processes");
    Hostpace engine = engine(throwing, Limits.rate(Rate.of(2, Duration.ofSeconds(1))));
    List<CompletableFuture<Response>> calls = get(engine, "/r", 3);
    time.advance(Duration.ofSeconds(5));

    assertThat(server.startTimes("/r")).hasSize(3);
    allAnsweredHoldingNothingAndWarningsOf(throwing, engine, calls);
    assertThat(log.messagesAt(Level.WARNING)).anyMatch(line -> line.contains(" from claimStart;"))
        .anyMatch(line -> line.contains(" from processes;"));
  }

  @ParameterizedTest(name = "the fleet throws {0}")
  @EnumSource(Thrown.class)
  void L2_aFleetThatThrowsSayingWhetherItKeepsIsAnEngineBuiltAsWithAFleetThatKeepsNothing(Thrown thrown) {
    Throwing throwing = new Throwing(thrown, 1, "keeps");
    Hostpace engine = engine(throwing, Limits.inFlight(1));
    List<CompletableFuture<Response>> calls = get(engine, "/r", 2);
    time.advance(Duration.ofSeconds(1));

    allAnsweredHoldingNothingAndWarningsOf(throwing, engine, calls);
    assertThat(log.messagesAt(Level.WARNING)).singleElement().asString().contains(" from keeps;");
  }

  @Test
  void L2_aThrowingFleetsClaimIsAnsweredUnclaimedOnTheTimerNotWithinTheCallAndOnlyOnce() {
    List<String> heard = new ArrayList<>();
    Fleet answersThenThrows = new Throwing(Thrown.EXCEPTION, 1) {
      @Override
      public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
        if (keys.get(0).equals("answered.test")) {
          then.accept(0); // a broken fleet: it answered, then threw
        }
        throw Thrown.unchecked(boom);
      }
    };
    GuardedFleet guarded = new GuardedFleet(answersThenThrows, time, new EventLog(log, time));
    guarded.claimStart("unanswered.test", 1_000, wait -> heard.add("unanswered " + wait));
    guarded.claimStart("answered.test", 1_000, wait -> heard.add("answered " + wait));

    assertThat(heard).containsExactly("answered 0"); // the engine asks under its lock: nothing more within the call
    time.runDue();
    assertThat(heard).containsExactly("answered 0", "unanswered " + Fleet.UNCLAIMED);
  }
}
