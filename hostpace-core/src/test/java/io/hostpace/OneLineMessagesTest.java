package io.hostpace;

import io.hostpace.internal.Redaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P4: a host or limit key that is refused is named in a message on one line, its control, format
 * and separating characters escaped, whatever the caller, a file or a URI put in it.
 */
class OneLineMessagesTest {

  @Test
  void P4_aHostDecodedFromPercentEscapedCrLfIsShownEscaped() {
    String message = messageOf(() -> HostKey.of(URI.create("http://evil%0d%0aSet-Cookie/")));
    assertOneLine(message);
    assertThat(message).contains("'evil\\r\\nSet-Cookie'");
  }

  @Test
  void P4_aLimitKeyWithANewlineIsShownEscaped() {
    for (String key : new String[] {"a\nb", "a\u001b[2Jb", "a\u202eb", "a\u2028b", "a\tb.example:x"}) {
      String message = messageOf(() -> HostKey.normaliseLimitKey(key));
      assertOneLine(message);
      assertThat(message).startsWith("host limit '" + Redaction.printable(key) + "'");
    }
    assertThat(messageOf(() -> HostKey.normaliseLimitKey("a\nb"))).startsWith("host limit 'a\\nb' ");
  }

  @Test
  void P4_aGroupWithAControlCharacterIsShownEscaped() {
    String message = messageOf(() -> HostKey.normaliseLimitKey("*.ex\u0001ample.org"));
    assertOneLine(message);
    assertThat(message).contains("*.ex\\x01ample.org");
  }

  @Test
  void aKeyThatIsNotAGroupIsShownEscaped() {
    String message = messageOf(() -> HostKey.inGroup("a.example.org", "example\n.org"));
    assertOneLine(message);
    assertThat(message).contains("'example\\n.org'");
  }

  @Test
  void P4_limitsGivenAsTextAreShownEscaped() {
    for (String spec : new String[] {"inFlight:1\nx", "inFlight:\u0007", "rate:1/\u0085s", "perSecond:1\u2029x", "\n"}) {
      String message = messageOf(() -> Limits.parse(spec));
      assertOneLine(message);
    }
    assertThat(messageOf(() -> Limits.parse("inFlight:1\rx"))).contains("'1\\rx'");
    String forKey = messageOf(() -> Hostpace.builder().addLimit("a.example", "rate:\u001b[1m/s"));
    assertOneLine(forKey);
    assertThat(forKey).contains("\\x1b[1m");
  }

  @Test
  void P4_oneKeyGivenTwiceIsShownEscaped() {
    String message = messageOf(() -> Hostpace.builder()
        .addLimit("Example.org\t", Limits.parse("inFlight:1"))
        .addLimit("example.org\n", Limits.parse("inFlight:2")));
    assertOneLine(message);
    assertThat(message).contains("'example.org\\n'").contains("'Example.org\\t'");
  }

  @Test
  void s1_aStateFileKeyWithAControlCharacterIsShownEscaped(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("state.tsv");
    Files.writeString(file, "ex\u0001ample.org\t1\t2\t3\t0\t0\t0\n", StandardCharsets.UTF_8);
    String message = messageOf(() -> {
      try {
        HostStateFile.load(file);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    assertOneLine(message);
    assertThat(message).contains("'ex\\x01ample.org'");
  }

  private static String messageOf(Runnable run) {
    IllegalArgumentException e = catchThrowableOfType(run::run, IllegalArgumentException.class);
    assertThat(e).as("refused").isNotNull();
    return String.valueOf(e.getMessage());
  }

  private static void assertOneLine(String message) {
    assertThat(message.chars()).as(message).noneMatch(c -> c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)
        || Character.getType(c) == Character.FORMAT || Character.getType(c) == Character.LINE_SEPARATOR
        || Character.getType(c) == Character.PARAGRAPH_SEPARATOR);
  }
}
