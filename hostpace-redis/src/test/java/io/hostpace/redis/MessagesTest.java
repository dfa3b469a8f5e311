package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.internal.Redaction;
import io.hostpace.spi.Fleet.Lesson;
import org.junit.jupiter.api.Test;

/** The text a lesson travels as (SPEC S2), without Redis. */
class MessagesTest {

  @Test
  void S2_aLessonReadsBackWithEveryFieldAndItsOrigin() {
    Lesson lesson = new Lesson("*.wikidata.org", true, 2_000_000_000L, 84_000_000L, 3);

    String message = Messages.encode("3f9a0c17d2e4b855", lesson);

    assertThat(message).isEqualTo("3f9a0c17d2e4b855\t*.wikidata.org\t1\t2000000000\t84000000\t3");
    assertThat(Messages.decode(message)).isEqualTo(new Messages.Heard("3f9a0c17d2e4b855", lesson));
  }

  @Test
  void S2_extremeValuesAndUnusualKeysReadBack() {
    for (Lesson lesson : new Lesson[] {
        new Lesson("example.org:8080", false, -1, 0, 0),
        new Lesson("xn--bcher-kva.example", true, Long.MAX_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE),
        new Lesson("[::1]:8080", true, 0, 1, 1),
    }) {
      assertThat(Messages.decode(Messages.encode("o", lesson))).isEqualTo(new Messages.Heard("o", lesson));
    }
  }

  @Test
  void S2_anOlderTellersFiveFieldsReadAsALessonWhoseInFlightCountIsNotKnown() {
    assertThat(Messages.decode("3f9a0c17d2e4b855\t*.wikidata.org\t1\t2000000000\t84000000"))
        .isEqualTo(new Messages.Heard("3f9a0c17d2e4b855", new Lesson("*.wikidata.org", true, 2_000_000_000L, 84_000_000L, 0)));
    assertThat(Messages.decode("o\texample.org\t0\t-1\t0"))
        .isEqualTo(new Messages.Heard("o", new Lesson("example.org", false, -1, 0, 0)));
  }

  @Test
  void S3_aLaterVersionsMessageIsNoLessonEvenWhenItsFieldsWouldRead() {
    assertThat(Messages.decode("v2\texample.org\t1\t-1\t0\t2")).isNull();
    assertThat(Messages.decode("v2\t3f9a0c17d2e4b855\texample.org\t1\t-1\t0")).isNull();
  }

  @Test
  void S2_aKeyNoEngineWritesCannotBeSentAndIsNamedOnOneLine() {
    assertThatThrownBy(() -> Messages.encode("o", new Lesson("example.org\t1", false, -1, 0, 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'example.org\\t1'");
    assertThatThrownBy(() -> Messages.encode("o", new Lesson("a\nb", false, -1, 0, 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a\\nb'")
        .hasMessageNotContaining("\n");
  }

  @Test
  void S2_aMessageWhoseKeyNoEngineWritesIsNoLesson() {
    String[] keys = {" ", "a\nb", "a\rb", "a b", "*.test", "*.org", "Example.org", "example.org:443", "example.org.",
        "http://example.org", "example.org/x", "example.org/quota", "a\u0000b", "a\u202eb", "*", "*.*.example.org"};
    for (String key : keys) {
      for (String message : new String[] {"o\t" + key + "\t1\t-1\t0\t2", "o\t" + key + "\t0\t-1\t0"}) {
        assertThat(Messages.decode(message)).as(Redaction.printable(message)).isNull();
      }
    }
    assertThat(Messages.decode("o\texample.org\t1\t-1\t0\t2")).as("the same message of a host's key").isNotNull();
  }

  @Test
  void S2_whatIsNotFiveOrSixValidFieldsIsNoLesson() {
    String[] notLessons = {
        "",
        "\t\t\t\t",
        "\t\t\t\t\t",
        "o\texample.org\t1\t-1",
        "o\texample.org\t1\t-1\t0\t",      // an empty in-flight count
        "o\texample.org\t1\t-1\t0\t2\t",   // seven fields
        "\texample.org\t1\t-1\t0",         // no origin
        "o\t\t1\t-1\t0",                   // no key
        "o\texample.org\ttrue\t-1\t0",     // refused is 1 or 0
        "o\texample.org\t1\t-2\t0",        // Retry-After is -1 or at least 0
        "o\texample.org\t1\t-1\t-1",       // took at least 0
        "o\texample.org\t1\t1.5\t0",
        "o\texample.org\t1\t-1\t99999999999999999999",
        "o\texample.org\t1\t-1\t0\t-1",    // in flight at least 0
        "o\texample.org\t1\t-1\t0\t2147483648", // in flight an int
        "o\texample.org\t1\t-1\t0\tmany",
        "o\texample.org\t1\t-1\t0\t1.0",
    };
    for (String message : notLessons) {
      assertThat(Messages.decode(message)).as(message.replace("\t", "\\t")).isNull();
    }
  }
}
