package io.hostpace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What may be shown of URIs and headers that hold secrets, and of any text: one line. */
class RedactionTest {

  @Test
  void theUserInfoOfAUriIsHiddenWhereverTheUriStandsInAText() {
    assertThat(Redaction.userInfo("redis://user:SECRET@cache:6379/0")).isEqualTo("redis://***@cache:6379/0");
    assertThat(Redaction.userInfo("--redis 'rediss://:SECRET@cache:6380' cannot be reached: Unable to connect to cache/1.2.3.4:6380"))
        .isEqualTo("--redis 'rediss://***@cache:6380' cannot be reached: Unable to connect to cache/1.2.3.4:6380");
    assertThat(Redaction.userInfo("http://TOKEN@example.org/a and https://u:SECRET@example.org?q"))
        .isEqualTo("http://***@example.org/a and https://***@example.org?q");
  }

  @Test
  void aPasswordTypedWithAnAtSignOrASpaceIsHiddenWhole() {
    assertThat(Redaction.userInfo("redis://user:SE@CRET@cache:6379")).isEqualTo("redis://***@cache:6379");
    assertThat(Redaction.userInfo("Illegal character in authority at index 7: http://user:SEC RET@exa mple.org/"))
        .isEqualTo("Illegal character in authority at index 7: http://***@exa mple.org/");
  }

  @Test
  void aUriWithoutUserInfoAndAnAtSignInItsPathOrQueryIsShownAsItIs() {
    for (String text : new String[] {"http://example.org/", "http://example.org/~me@home", "http://example.org?to=a@b.org",
        "mailto:me@example.org", "http://example.org#a@b"}) {
      assertThat(Redaction.userInfo(text)).isEqualTo(text);
    }
  }

  @Test
  void theValuesOfHeadersThatCarryCredentialsAreHiddenWhole() {
    for (String name : new String[] {"Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key",
        "X-Auth-Token", "X-Amz-Security-Token", "X-Session-Id"}) {
      assertThat(Redaction.secretHeader(name)).as(name).isTrue();
      assertThat(Redaction.header(name, "Bearer SECRET")).as(name).isEqualTo("***");
    }
    assertThat(Redaction.secretHeader("Accept")).isFalse();
    assertThat(Redaction.header("Accept", "text/turtle")).isEqualTo("text/turtle");
    assertThat(Redaction.header("Referer", "https://u:SECRET@example.org/")).isEqualTo("https://***@example.org/");
  }

  @Test
  void controlFormatAndSeparatorCharactersAreEscapedAndTheRestIsKept() {
    assertThat(Redaction.printable("a\nb\r\tc\u0001\u001b[2J\u007f")).isEqualTo("a\\nb\\r\\tc\\x01\\x1b[2J\\x7f");
    assertThat(Redaction.printable("\u0085 \u202e \u2028 \u2029 \u200b \ufeff"))
        .isEqualTo("\\x85 \\u202e \\u2028 \\u2029 \\u200b \\ufeff");
    assertThat(Redaction.printable("\udb40\udc01")).isEqualTo("\\U000e0001");
    String kept = "café, 東京, \ud83d\ude00, C:\\data, redis://u:p@h";
    assertThat(Redaction.printable(kept)).isSameAs(kept);
  }

  @Test
  void escapingTwiceChangesNothingMore() {
    String once = Redaction.printable("a\nb\u0000\u202e");
    assertThat(Redaction.printable(once)).isEqualTo(once).isEqualTo("a\\nb\\x00\\u202e");
  }
}
