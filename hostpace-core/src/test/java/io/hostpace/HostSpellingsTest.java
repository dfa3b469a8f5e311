package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SPEC P4 and the words' host: every spelling of a host, in a URL or in a limit's key, is one
 * host, so no spelling escapes its limits. Each request takes a second; one at a time, they start
 * a second apart.
 */
class HostSpellingsTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok().after(Duration.ofSeconds(1)));

  void submit(Hostpace engine, String... uris) {
    for (String uri : uris) {
      engine.execute(server.get(uri), CallContext.DEFAULT);
    }
  }

  Hostpace.Builder engine() {
    return Hostpace.builder().widenFirstContact(false).time(time);
  }

  @Test
  void P4_aKeyWithPort80HoldsTheHostsRequestsOnEitherDefaultPort() {
    Hostpace engine = engine().addLimit("example.test:80", Limits.inFlight(1)).build();

    submit(engine, "http://example.test/1", "http://example.test:80/2", "https://example.test/3",
        "HTTPS://Example.TEST.:443/4");
    time.advance(Duration.ofSeconds(10));

    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /2", "2.000 /3", "3.000 /4");
  }

  @Test
  void P4_aKeyWithADefaultPortDoesNotHoldTheHostOnAnotherPort() {
    Hostpace engine = engine().addLimit("example.test:443", Limits.inFlight(1)).build();

    submit(engine, "http://example.test:8080/1", "http://example.test:8080/2");
    time.runDue();

    assertThat(server.starts()).containsExactly("0.000 /1", "0.000 /2");
  }

  @Test
  void P4_aKeyWithoutPortHoldsEveryPortAndOneWithADefaultPortStandsOverItThere() {
    Hostpace engine = engine()
        .addLimit("example.test", Limits.inFlight(1))
        .addLimit("example.test:80", Limits.inFlight(2))
        .build();

    submit(engine, "http://example.test/1", "https://example.test/2", "http://example.test:8080/3",
        "http://example.test:8080/4");
    time.runDue();

    assertThat(server.startTimes("example.test/")).containsExactly("0.000", "0.000");
    assertThat(server.startTimes("example.test:8080")).containsExactly("0.000");
  }

  @Test
  void P4_spellingsOfOneIpv6AddressAreOneHost() {
    Hostpace engine = engine().addLimit("[0:0:0:0:0:0:0:1]:8080", Limits.inFlight(1)).build();

    submit(engine, "http://[::1]:8080/1", "http://[0:0:0:0:0:0:0:1]:8080/2", "http://[::0001]:8080/3");
    time.advance(Duration.ofSeconds(10));

    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /2", "2.000 /3");
  }

  @Test
  void P4_spellingsOfOneIpv4AddressAreOneHost() {
    Hostpace engine = engine().addLimit("127.1:8080", Limits.inFlight(1)).build();

    submit(engine, "http://127.0.0.1:8080/1", "http://2130706433:8080/2", "http://[::ffff:127.0.0.1]:8080/3",
        "http://127.000.000.001:8080/4", "http://127.0.1:8080/5");
    time.advance(Duration.ofSeconds(10));

    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /2", "2.000 /3", "3.000 /4", "4.000 /5");
  }

  @Test
  void P4_aNameIsNotItsAddress() {
    // localhost is 127.0.0.1 only by a look-up, which a key never makes.
    Hostpace engine = engine().addLimit("127.0.0.1", Limits.inFlight(1)).build();

    submit(engine, "http://localhost/1", "http://127.0.0.1/2", "http://localhost/3");
    time.runDue();

    assertThat(server.starts()).containsExactly("0.000 /1", "0.000 /2", "0.000 /3");
  }

  @Test
  void P4_whatAHostTaughtUnderOneSpellingHoldsUnderEveryOther() {
    server.script(exchange -> exchange.sends == 1 && exchange.uri.getPath().equals("/1")
        ? Reply.status(429).header("Retry-After", "5") : Reply.ok());
    Hostpace engine = engine().build();

    submit(engine, "http://[::ffff:7f00:1]/1");
    time.advance(Duration.ofSeconds(1));
    submit(engine, "http://127.0.0.1:80/2", "https://127.1/3");
    time.advance(Duration.ofSeconds(10));

    // refused at 0.1 s for 5 s: every spelling waits for the one pause
    assertThat(server.starts()).containsExactly("0.000 /1", "5.100 /1", "5.100 /2", "5.100 /3");
  }

  @Test
  void P4_forgetTakesAnySpellingOfTheHost() {
    server.script(exchange -> exchange.uri.getPath().equals("/1")
        ? Reply.status(429).header("Retry-After", "30") : Reply.ok());
    Hostpace engine = engine().retries(0).build();

    submit(engine, "http://example.test/1");
    time.advance(Duration.ofSeconds(1)); // refused at 0.1 s, paused for 30 s
    engine.forget("Example.Test.:443");
    submit(engine, "http://example.test/2");
    time.runDue();

    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /2");
  }

  @Test
  void P4_oneKeyGivenTwoLimitsInTwoSpellingsIsRefusedNamingBoth() {
    Hostpace.Builder builder = engine().addLimit("example.test:80", Limits.inFlight(1));

    assertThatThrownBy(() -> builder.addLimit("Example.test.:443", Limits.inFlight(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host limit 'Example.test.:443' {inFlight: 2} is given twice: 'example.test:80' has "
            + "{inFlight: 1} already, and both name 'example.test' at ports 80 and 443; give each host its limits once");
    assertThatThrownBy(() -> CallContext.builder().addLimit("[::1]", "inFlight:1").addLimit("[0::1]", "inFlight:3"))
        .hasMessageStartingWith("host limit '[0::1]' {inFlight: 3} is given twice: '[::1]' has {inFlight: 1} already");
    assertThatThrownBy(() -> CallContext.builder().addLimit("x.test", "inFlight:1").addLimit("x.test", "inFlight:3"))
        .hasMessageContaining("is given twice");
  }

  @Test
  void P4_oneKeyGivenTheSameLimitsInTwoSpellingsIsKeptOnce() {
    Hostpace engine = engine()
        .addLimit("example.test:80", Limits.inFlight(1))
        .addLimit("EXAMPLE.test:443", Limits.inFlight(1))
        .build();

    submit(engine, "http://example.test/1", "https://example.test/2");
    time.advance(Duration.ofSeconds(5));

    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /2");
    assertThat(engine.effectiveLimits(URI.create("https://example.test/"), CallContext.DEFAULT).inFlight())
        .isEqualTo(1);
  }

  @Test
  void P4_aContextsKeyInAnotherSpellingStandsOverTheEnginesForTheSameHost() {
    Hostpace engine = engine().addLimit("[::ffff:127.0.0.1]", Limits.inFlight(5)).build();
    CallContext context = CallContext.builder().addLimit("127.1", Limits.inFlight(1)).build();

    assertThat(engine.effectiveLimits(URI.create("http://127.0.0.1/"), context).inFlight()).isEqualTo(1);
    assertThat(engine.effectiveLimits(URI.create("http://127.0.0.1/"), CallContext.DEFAULT).inFlight()).isEqualTo(5);
  }

  @Test
  void P4_aContextStartedFromAnotherKeepsItsKeysAndRefusesAConflictingOne() {
    CallContext first = CallContext.builder().addLimit("Example.test", Limits.inFlight(1)).build();

    CallContext second = first.toBuilder().addLimit("other.test", Limits.inFlight(2)).build();

    Hostpace engine = engine().build();
    assertThat(engine.effectiveLimits(URI.create("http://example.test:8080/"), second).inFlight()).isEqualTo(1);
    assertThatThrownBy(() -> first.toBuilder().addLimit("example.test.", Limits.inFlight(3)))
        .hasMessageContaining("is given twice");
  }
}
