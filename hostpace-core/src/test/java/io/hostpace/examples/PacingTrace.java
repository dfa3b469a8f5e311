package io.hostpace.examples;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.VirtualTime;
import io.hostpace.testing.ScriptedExchange;
import io.hostpace.testing.Spacing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * Prints, in virtual time, how the engine meets a host that accepts one request a second and
 * refuses the rest with a bare 429, as QLever's Wikidata endpoint does: twenty requests arrive
 * at once; every one completes; the trace shows each start, refusal and change of pace.
 *
 * <p>Uses only the public API, as a user's own test would.
 */
public final class PacingTrace {

  private PacingTrace() {}

  /** The server: one request a second, 50 ms to answer. */
  static final class OneASecond {
    final VirtualTime time;
    final Spacing spacing = Spacing.oneEvery(Duration.ofSeconds(1));
    int refused;

    OneASecond(VirtualTime time) {
      this.time = time;
    }

    int admit() {
      if (spacing.admit(time.nanoTime())) {
        return 200;
      }
      refused++;
      return 429;
    }
  }

  public static void main(String[] args) {
    VirtualTime time = VirtualTime.create();
    long origin = time.nanoTime();
    OneASecond server = new OneASecond(time);
    List<String> trace = new ArrayList<>();
    Hostpace engine = Hostpace.builder()
        .time(time)
        .limitsForEveryHost(Limits.inFlight(32))
        .retries(20)
        .addListener(event -> trace.add(describe(event, origin)))
        .build();

    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      calls.add(engine.execute(request("https://qlever.test/sparql?q=" + i, server)));
    }
    Duration took = time.runUntilIdle(Duration.ofHours(1));

    trace.forEach(System.out::println);
    long completed = calls.stream().filter(call -> call.join() == 200).count();
    HostSnapshot host = engine.snapshot().stream().filter(h -> h.key().equals("qlever.test")).findFirst().orElseThrow();
    System.out.printf(Locale.ROOT, "%n%d of %d requests completed in %.1f s of virtual time; %d refusals; "
            + "learned interval now %d ms.%n",
        completed, calls.size(), took.toMillis() / 1e3, server.refused, host.interval().toMillis());
  }

  private static String describe(HostpaceEvent event, long origin) {
    String at = String.format(Locale.ROOT, "%8.3f s  ", (event.atNanos() - origin) / 1e9);
    if (event instanceof HostpaceEvent.Started started) {
      return at + "start    " + started.uri().getQuery() + " attempt " + started.attempt();
    } else if (event instanceof HostpaceEvent.Refused refused) {
      return at + "refused  " + refused.uri().getQuery() + " with " + refused.status();
    } else if (event instanceof HostpaceEvent.IntervalChanged changed) {
      return at + "interval " + changed.from().toMillis() + " ms -> " + changed.to().toMillis() + " ms";
    } else if (event instanceof HostpaceEvent.GaveUp gaveUp) {
      return at + "gave up  " + gaveUp.uri().getQuery() + ": " + gaveUp.reason();
    }
    return at + event.getClass().getSimpleName();
  }

  /** One request to the model server, answered 50 ms after it starts. */
  private static ScriptedExchange<Integer> request(String uri, OneASecond server) {
    return ScriptedExchange.statuses(uri)
        .answers(attempt -> ScriptedExchange.after(server.time, 50_000_000L, server.admit()))
        .build();
  }
}
