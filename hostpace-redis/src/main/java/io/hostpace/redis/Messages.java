package io.hostpace.redis;

import io.hostpace.spi.Fleet.Lesson;
import org.jspecify.annotations.Nullable;

/**
 * The text a lesson travels as on the fleet's channel: five fields separated by tabs, the
 * teller's process id, the key, {@code 1} or {@code 0} for refused, the Retry-After and the time
 * the answer took, both in nanoseconds ({@code -1} for no Retry-After).
 *
 * <pre>
 * 3f9a0c17d2e4b855	query.wikidata.org	1	2000000000	84000000
 * </pre>
 *
 * <p>A key with a tab cannot be sent (a host key never has one), and a message that does not read
 * as exactly these five fields is no lesson: an older or newer teller's message, or another
 * program's on the same channel, is ignored rather than misread.
 */
final class Messages {

  private static final char SEPARATOR = '\t';
  private static final int FIELDS = 5;

  private Messages() {}

  /** A lesson and the process that told it, as read from the channel. */
  record Heard(String origin, Lesson lesson) {}

  /** The message that tells {@code lesson} from {@code origin}, or null if its key has a tab. */
  static @Nullable String encode(String origin, Lesson lesson) {
    if (lesson.key().indexOf(SEPARATOR) >= 0) {
      return null;
    }
    return origin + SEPARATOR + lesson.key() + SEPARATOR + (lesson.refused() ? '1' : '0')
        + SEPARATOR + lesson.retryAfterNanos() + SEPARATOR + lesson.tookNanos();
  }

  /** The lesson {@code message} tells, or null if it is not one; never throws. */
  static @Nullable Heard decode(String message) {
    String[] fields = message.split(String.valueOf(SEPARATOR), -1);
    if (fields.length != FIELDS || fields[0].isEmpty()) {
      return null;
    }
    boolean refused;
    if (fields[2].equals("1")) {
      refused = true;
    } else if (fields[2].equals("0")) {
      refused = false;
    } else {
      return null;
    }
    try {
      long retryAfterNanos = Long.parseLong(fields[3]);
      long tookNanos = Long.parseLong(fields[4]);
      return new Heard(fields[0], new Lesson(fields[1], refused, retryAfterNanos, tookNanos));
    } catch (IllegalArgumentException notALesson) { // a number that does not parse, or a field Lesson refuses
      return null;
    }
  }
}
