package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --host KEY=SPEC} keys as the engine normalises them (SPEC: host, P4), run in this process
 * against a server on 127.0.0.1: a key spelt otherwise than the URLs still holds them, and a key
 * that can never match is refused, saying why.
 */
class HostKeysCommandTest extends ServedCommandTest {

  @Test
  void aKeySpeltAsAnIpv4MappedAddressHoldsEverySpellingOfTheUrlsToOneAtOnce() {
    // Each URL reaches 127.0.0.1 through the JDK's client; the engine takes them all for one host.
    List<String> args = new ArrayList<>(List.of("fetch", "--quiet", "--host", "[::FFFF:7f00:1]:" + server.port() + "=inFlight:1"));
    String[] spellings = {"127.0.0.1", "2130706433", "[::ffff:127.0.0.1]", "127.000.000.001"};
    for (int i = 0; i < 12; i++) {
      args.add("http://" + spellings[i % spellings.length] + ":" + server.port() + "/slow?" + i);
    }

    assertThat(run(args.toArray(String[]::new))).isZero();

    assertThat(out.split("\n")).hasSize(12).allSatisfy(line -> assertThat(line).contains("\"status\":200"));
    assertThat(server.maxInFlight.get()).isEqualTo(1);
  }

  @Test
  void aShortIpv4KeyHoldsTheDottedUrls() {
    assertThat(run("fetch", "--quiet", "--host", "127.1:" + server.port() + "=inFlight:1",
        server.url("/slow?1"), server.url("/slow?2"), server.url("/slow?3"), server.url("/slow?4"))).isZero();

    assertThat(server.maxInFlight.get()).isEqualTo(1);
  }

  @Test
  void aKeyWithASchemeIsRefusedSayingSo() {
    assertThat(run("fetch", "--host", "http://127.0.0.1:" + server.port() + "/=inFlight:1", server.url("/ok"))).isEqualTo(2);

    assertThat(err.strip()).startsWith("hostpace: --host 'http://127.0.0.1:" + server.port() + "/=inFlight:1': host limit 'http://127.0.0.1:"
        + server.port() + "/' has a scheme: expected a host without scheme or path");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void keysThatCanNeverMatchAreRefusedNamingTheKey() {
    assertThat(run("fetch", "--host", "example.test:65536=inFlight:1", server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("host limit 'example.test:65536' has an invalid port: expected 1 to 65535");

    assertThat(run("fetch", "--host", "::1=inFlight:1", server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("host limit '::1' is not a host: an IPv6 address is written in brackets, such as '[::1]'");

    assertThat(run("fetch", "--host", "a..example.test=inFlight:1", server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("host limit 'a..example.test' is not a host: 'a..example.test' has an empty label");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void oneHostGivenTwoLimitsInTwoSpellingsIsRefusedNamingBoth() {
    assertThat(run("fetch", "--host", "example.test:80=inFlight:1", "--host", "EXAMPLE.test.:443=inFlight:2",
        server.url("/ok"))).isEqualTo(2);

    assertThat(err).contains("host limit 'EXAMPLE.test.:443' {inFlight: 2} is given twice: 'example.test:80' has "
        + "{inFlight: 1} already, and both name 'example.test' at ports 80 and 443");
    assertThat(server.requests).isEmpty();
  }
}
