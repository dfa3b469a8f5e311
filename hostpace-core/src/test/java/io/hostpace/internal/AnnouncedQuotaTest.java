package io.hostpace.internal;

import io.hostpace.Clock;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** SPEC R8: the forms of an announced quota that the engine reads, and what it makes of them. */
class AnnouncedQuotaTest {

  /** 2026-12-01T10:00:00.250Z: 1_796_119_200 s and 250 ms since the epoch. */
  static final Instant NOW = Instant.parse("2026-12-01T10:00:00.250Z");
  static final Clock CLOCK = new Clock() {
    @Override
    public long nanoTime() {
      return 0;
    }

    @Override
    public Instant instant() {
      return NOW;
    }
  };

  /** The wait the answer asks for when nothing remains; {@link AnnouncedQuota#NONE} else. */
  static long pause(String... namesAndValues) {
    AnnouncedQuota.Announced announced = read(namesAndValues);
    return announced.says() && announced.remaining() == 0 ? announced.resetNanos() : AnnouncedQuota.NONE;
  }

  static long seconds(double seconds) {
    return Math.round(seconds * 1e9);
  }

  @Test
  void R8_theIetfDraftsListOfPoliciesWithNothingRemainingWaitsTheLongestOfThem() {
    assertThat(pause("RateLimit", "\"default\";r=0;t=30")).isEqualTo(seconds(30));
    assertThat(pause("RateLimit", "\"burst\";r=0;t=5, \"daily\";r=0;t=3600")).isEqualTo(seconds(3600));
    assertThat(pause("RateLimit", "\"burst\";r=3;t=5, \"daily\";r=0;t=60")).isEqualTo(seconds(60));
    assertThat(pause("RateLimit", "\"default\";r=50;t=30")).isEqualTo(AnnouncedQuota.NONE);
  }

  @Test
  void R8_theEarlierDraftsDictionaryAndSeparateFields() {
    assertThat(pause("RateLimit", "limit=100, remaining=0, reset=7")).isEqualTo(seconds(7));
    assertThat(pause("RateLimit", "limit=100, remaining=1, reset=7")).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("RateLimit-Limit", "10", "RateLimit-Remaining", "0", "RateLimit-Reset", "2.5")).isEqualTo(seconds(2.5));
  }

  @Test
  void R8_xRateLimitResetAsSecondsToWaitOrAsAUnixTimeInSecondsOrMilliseconds() {
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "12")).isEqualTo(seconds(12));
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1796119230")).isEqualTo(seconds(29.75)); // GitHub
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1796119201250")).isEqualTo(seconds(1));
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset-After", "0.5")).isEqualTo(seconds(0.5)); // Discord
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1796119100")).isZero(); // past: no wait
  }

  @Test
  void R8_somethingRemainingOrNoResetOrJunkAnnouncesNothing() {
    assertThat(pause()).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("X-RateLimit-Remaining", "4", "X-RateLimit-Reset", "12")).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("X-RateLimit-Remaining", "0")).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("X-RateLimit-Remaining", "-0", "X-RateLimit-Reset", "12")).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "soon")).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "-5")).isEqualTo(AnnouncedQuota.NONE);
    assertThat(pause("RateLimit", "\"default\";r=0")).isEqualTo(AnnouncedQuota.NONE);
  }

  static AnnouncedQuota.Announced read(String... namesAndValues) {
    Map<String, String> headers = new HashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.put(namesAndValues[i].toLowerCase(Locale.ROOT), namesAndValues[i + 1]);
    }
    return AnnouncedQuota.read(name -> headers.get(name.toLowerCase(Locale.ROOT)), CLOCK);
  }

  @Test
  void R8_whatRemainsIsReadTooAndOfSeveralPoliciesTheOneThatLeavesTheLeast() {
    assertThat(read("RateLimit", "\"default\";r=5;t=30")).isEqualTo(new AnnouncedQuota.Announced(5, seconds(30)));
    assertThat(read("RateLimit", "\"minute\";r=5;t=30, \"day\";r=2;t=3600"))
        .isEqualTo(new AnnouncedQuota.Announced(2, seconds(3600)));
    assertThat(read("X-RateLimit-Remaining", "17", "X-RateLimit-Reset", "12"))
        .isEqualTo(new AnnouncedQuota.Announced(17, seconds(12)));
    assertThat(read("X-RateLimit-Remaining", "lots", "X-RateLimit-Reset", "12").says()).isFalse();
  }

  @Test
  void R8_theStartsAWindowAreReadWhenSaidAndNoFewerThanRemain() {
    assertThat(read("X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "5").limit())
        .isEqualTo(10);
    assertThat(read("RateLimit-Limit", "60", "RateLimit-Remaining", "7", "RateLimit-Reset", "5").limit()).isEqualTo(60);
    assertThat(read("RateLimit", "limit=100, remaining=0, reset=7").limit()).isEqualTo(100);
    assertThat(read("X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "5").limit()).isEqualTo(-1);
    assertThat(read("X-RateLimit-Limit", "5", "X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "5").limit())
        .isEqualTo(-1);
    assertThat(read("X-RateLimit-Limit", "ten", "X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "5").limit())
        .isEqualTo(-1);
  }

  @Test
  void R8_theStartsAWindowAreReadFromRateLimitPolicyOfTheSameNameAsTheRateLimitPolicyReported() {
    assertThat(read("RateLimit", "\"default\";r=7;t=5", "RateLimit-Policy", "\"default\";q=10;w=5"))
        .isEqualTo(new AnnouncedQuota.Announced(7, seconds(5), 10));
    // Several policies: the one the tightest reported names; a token name as a string's.
    assertThat(read("RateLimit", "\"burst\";r=7;t=5, \"daily\";r=900;t=3600",
        "RateLimit-Policy", "\"daily\";q=1000;w=86400, \"burst\";q=10;w=5").limit()).isEqualTo(10);
    assertThat(read("RateLimit", "\"burst\";r=70;t=5, \"daily\";r=9;t=3600",
        "RateLimit-Policy", "burst;q=100;w=5, daily;q=1000;w=86400").limit()).isEqualTo(1000);
    // No policy of that name, or a quota of bytes or of requests in flight: not said.
    assertThat(read("RateLimit", "\"burst\";r=7;t=5", "RateLimit-Policy", "\"daily\";q=1000;w=86400").limit())
        .isEqualTo(-1);
    assertThat(read("RateLimit", "\"default\";r=7;t=5", "RateLimit-Policy", "\"default\";q=10;qu=\"content-bytes\";w=5")
        .limit()).isEqualTo(-1);
    assertThat(read("RateLimit", "\"default\";r=7;t=5", "RateLimit-Policy", "\"default\";q=10;qu=\"requests\";w=5")
        .limit()).isEqualTo(10);
  }

  @Test
  void R8_theEarlierDraftsPoliciesAndListOfLimitsSayTheStartsAWindowToo() {
    // Draft 07: the dictionary, with the policies as bare quotas.
    assertThat(read("RateLimit", "remaining=7, reset=5", "RateLimit-Policy", "10;w=5").limit()).isEqualTo(10);
    assertThat(read("RateLimit", "limit=100, remaining=7, reset=5", "RateLimit-Policy", "10;w=5").limit())
        .isEqualTo(100); // the limit said wins
    // Drafts 00 to 06: RateLimit-Limit a list, its first member the window's; or a policy apart.
    assertThat(read("RateLimit-Limit", "10, 10;w=5, 1000;w=86400", "RateLimit-Remaining", "7", "RateLimit-Reset", "5")
        .limit()).isEqualTo(10);
    assertThat(read("RateLimit-Policy", "10;w=5", "RateLimit-Remaining", "7", "RateLimit-Reset", "5").limit())
        .isEqualTo(10);
    assertThat(read("RateLimit-Policy", "10;w=5", "X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "5").limit())
        .isEqualTo(10);
    // Of several policies with no name to choose by, none: nothing tells which one remains.
    assertThat(read("RateLimit-Policy", "10;w=5, 1000;w=86400", "RateLimit-Remaining", "7", "RateLimit-Reset", "5")
        .limit()).isEqualTo(-1);
  }

  @Test
  void R8_aPolicyThatDoesNotParseOrSaysFewerThanRemainSaysNoStartsAWindowAndTheRestStands() {
    for (String junk : new String[] {"", ",", ";", "\"default\";q", "\"default\";q=", "\"default\";q=ten;w=5",
        "\"default\";q=-10;w=5", "\"default\";q=1.5;w=5", "\"default\";q=3;w=5", "\"default", "\"\";;;q==10",
        "\"default\";q=10;qu=", "\"default\"x;q=10", "\"default\";w=5"}) {
      assertThat(read("RateLimit", "\"default\";r=7;t=5", "RateLimit-Policy", junk)).as(junk)
          .isEqualTo(new AnnouncedQuota.Announced(7, seconds(5)));
    }
    assertThat(read("RateLimit-Policy", "\"default\";q=10;w=5").says()).isFalse(); // a policy alone: no quota left said
  }

  @Test
  void R8_aResetFarOffIsCutToAYear() {
    assertThat(pause("RateLimit-Remaining", "0", "RateLimit-Reset", "999999999.5")).isEqualTo(Duration.ofDays(365).toNanos());
  }

  @Property
  void R8_nothingAServerSendsThrowsOrAsksForLessThanNothing(
      @ForAll String combined, @ForAll String remaining, @ForAll String reset) {
    for (String[] form : new String[][] {
        {"RateLimit", combined},
        {"RateLimit", "\"p\";r=" + remaining + ";t=" + reset},
        {"RateLimit", "limit=" + combined + ", remaining=" + remaining + ", reset=" + reset},
        {"RateLimit-Remaining", remaining, "RateLimit-Reset", reset},
        {"X-RateLimit-Remaining", remaining, "X-RateLimit-Reset", reset},
        {"RateLimit", "\"p\";r=" + remaining + ";t=" + reset, "RateLimit-Policy", combined},
        {"RateLimit", "\"p\";r=" + remaining + ";t=" + reset, "RateLimit-Policy", "\"p\";q=" + combined + ";w=" + reset},
        {"RateLimit-Limit", combined, "RateLimit-Remaining", remaining, "RateLimit-Reset", reset}}) {
      long pause = pause(form);
      assertThat(pause).isBetween(AnnouncedQuota.NONE, Duration.ofDays(365).toNanos());
      AnnouncedQuota.Announced announced = read(form);
      assertThat(announced.limit()).isBetween(-1L, 1_000_000_000L);
      assertThat(announced.limit() < 0 || announced.limit() >= announced.remaining()).isTrue();
    }
  }
}
