package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.testing.FixedWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * SPEC R8 and P12 in virtual time: a host that publishes its quota on every answer, 10 requests in
 * each fixed window of 5 s, is met for the first time by 40 requests that arrive at once. In each
 * form it announces the window's quota, and wherever in its window the burst arrives, it refuses
 * none of them: the first answer makes the host known, and the window after each reset is held to
 * its quota before that window's first answer.
 */
class PublishedQuotaFirstContactTest {

  static final int LIMIT = 10;
  static final Duration WINDOW = Duration.ofSeconds(5);
  static final int REQUESTS = 40;
  static final Duration LATENCY = Duration.ofMillis(100);
  /** How long the server's window has run when the burst arrives, in ms: so its first reset is 5 s off, or nearly now. */
  static final long[] INTO_THE_WINDOW = {0, 1500, 3900, 4990};

  /** The headers an answer carries, from what remains of the window and the whole seconds (rounded up) to its end. */
  static final Map<String, BiFunction<Long, Long, List<String>>> FORMS = Map.of(
      "RateLimit with RateLimit-Policy (draft 08)", (remaining, seconds) -> List.of(
          "RateLimit", "\"default\";r=" + remaining + ";t=" + seconds,
          "RateLimit-Policy", "\"default\";q=" + LIMIT + ";w=" + WINDOW.toSeconds()),
      "RateLimit dictionary with RateLimit-Policy (draft 07)", (remaining, seconds) -> List.of(
          "RateLimit", "remaining=" + remaining + ", reset=" + seconds,
          "RateLimit-Policy", LIMIT + ";w=" + WINDOW.toSeconds()),
      "RateLimit-Limit, -Remaining and -Reset (drafts 00 to 06)", (remaining, seconds) -> List.of(
          "RateLimit-Limit", LIMIT + ", " + LIMIT + ";w=" + WINDOW.toSeconds(),
          "RateLimit-Remaining", String.valueOf(remaining),
          "RateLimit-Reset", String.valueOf(seconds)),
      "X-RateLimit-Limit, -Remaining and -Reset", (remaining, seconds) -> List.of(
          "X-RateLimit-Limit", String.valueOf(LIMIT),
          "X-RateLimit-Remaining", String.valueOf(remaining),
          "X-RateLimit-Reset", String.valueOf(seconds)));

  /** What the server saw: its refusals, the requests it accepted in each of its windows, whether every call ended. */
  record Seen(int refused, List<Integer> acceptedByWindow, boolean allDone) {}

  static Seen burst(BiFunction<Long, Long, List<String>> form, Duration into) {
    VirtualTime time = VirtualTime.create();
    FixedWindow window = FixedWindow.of(LIMIT, WINDOW, time.nanoTime() - into.toNanos());
    List<Integer> acceptedByWindow = new ArrayList<>();
    int[] refused = new int[1];
    long origin = time.nanoTime();
    FakeServer server = new FakeServer(time, exchange -> {
      long now = time.nanoTime();
      boolean accepted = window.admit(now);
      int index = (int) ((now - origin + into.toNanos()) / WINDOW.toNanos());
      while (acceptedByWindow.size() <= index) {
        acceptedByWindow.add(0);
      }
      if (accepted) {
        acceptedByWindow.set(index, acceptedByWindow.get(index) + 1);
      } else {
        refused[0]++;
      }
      long seconds = (window.resetIn(now) + 999_999_999L) / 1_000_000_000L;
      Reply reply = Reply.status(accepted ? 200 : 429).after(LATENCY);
      List<String> headers = form.apply(window.remaining(now), seconds);
      for (int i = 0; i < headers.size(); i += 2) {
        reply = reply.header(headers.get(i), headers.get(i + 1));
      }
      return reply;
    });
    Hostpace engine = Hostpace.builder().time(time).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < REQUESTS; i++) {
      calls.add(engine.execute(server.get("http://api.test/" + i)));
    }

    time.runUntilIdle(Duration.ofHours(1));

    return new Seen(refused[0], acceptedByWindow, calls.stream().allMatch(CompletableFuture::isDone));
  }

  @Test
  void R8_P12_aHostThatPublishesItsQuotaIsMetWithoutARefusalByABurstAtFirstContact() {
    FORMS.forEach((name, form) -> {
      for (long into : INTO_THE_WINDOW) {
        // At 0 s the 40 arrive, the server's window that old: none is refused, every call ends.
        String what = name + ", first contact " + into + " ms into a window";
        Seen seen = burst(form, Duration.ofMillis(into));
        assertThat(seen.refused()).as(what).isZero();
        assertThat(seen.acceptedByWindow()).as(what).allSatisfy(accepted -> assertThat(accepted).isLessThanOrEqualTo(LIMIT));
        assertThat(seen.acceptedByWindow().stream().mapToInt(Integer::intValue).sum()).as(what).isEqualTo(REQUESTS);
        assertThat(seen.allDone()).as(what).isTrue();
      }
    });
  }
}
