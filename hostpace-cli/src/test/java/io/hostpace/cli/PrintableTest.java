package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the command line prints of a text it was given: one line, no URI's password. */
class PrintableTest {

  @Test
  void controlFormatAndSeparatorCharactersAreEscapedAndTheRestIsKept() {
    assertThat(Printable.line("a\nb\r\tc\u0001\u001b[2J\u007f")).isEqualTo("a\\nb\\r\\tc\\x01\\x1b[2J\\x7f");
    assertThat(Printable.line("\u0085 \u202e \u2028 \u2029 \u200b")).isEqualTo("\\x85 \\u202e \\u2028 \\u2029 \\u200b");
    assertThat(Printable.line("\udb40\udc01")).isEqualTo("\\U000e0001");
    assertThat(Printable.line("café, 東京, \ud83d\ude00, C:\\data")).isEqualTo("café, 東京, \ud83d\ude00, C:\\data");
  }

  @Test
  void theUserInfoOfAUriIsHidden() {
    assertThat(Printable.line("--redis 'redis://u:SECRET@h:6379'\n")).isEqualTo("--redis 'redis://***@h:6379'\\n");
  }
}
