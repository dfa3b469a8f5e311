package io.hostpace.redis;

import io.hostpace.Hostpace;
import io.hostpace.spi.Fleet.Lesson;
import org.jspecify.annotations.Nullable;

/**
 * The text a lesson travels as on the fleet's channel: six fields separated by tabs, the teller's
 * process id, the key, {@code 1} or {@code 0} for refused, the Retry-After and the time the answer
 * took, both in nanoseconds ({@code -1} for no Retry-After), and how many of the host's requests
 * were in flight when it started ({@code 0} for not known).
 *
 * <pre>
 * 3f9a0c17d2e4b855	query.wikidata.org	1	2000000000	84000000	3
 * </pre>
 *
 * <p>The five fields an older teller sends, without the last, read as a lesson whose in-flight
 * count is not known (0). The key is a host's or a group's as the engine writes it
 * ({@link Hostpace#checkKey}: never a tab, a space or a control character): a lesson of another
 * key cannot be sent, and a message whose key is not one is no lesson, as a message that does not
 * read as these five or six fields is not: a newer teller's message, or another program's on the
 * same channel, is ignored rather than misread or applied to a host no engine has. An older listener
 * ignores the six fields, so while a fleet is upgraded its older processes do not hear the newer.
 * This is the format's first version; a later one begins with a field {@code v2} (and so on), which
 * this release reads as no lesson whatever follows (a teller's id is hex, and never begins so).
 */
final class Messages {

  private static final char SEPARATOR = '\t';
  private static final int FIELDS = 6;
  private static final int OLDER_FIELDS = 5;

  private Messages() {}

  /** A lesson and the process that told it, as read from the channel. */
  record Heard(String origin, Lesson lesson) {}

  /**
   * The message that tells {@code lesson} from {@code origin}.
   *
   * @throws IllegalArgumentException naming the key if it is not one the engine writes
   */
  static String encode(String origin, Lesson lesson) {
    Hostpace.checkKey(lesson.key());
    return origin + SEPARATOR + lesson.key() + SEPARATOR + (lesson.refused() ? '1' : '0')
        + SEPARATOR + lesson.retryAfterNanos() + SEPARATOR + lesson.tookNanos() + SEPARATOR + lesson.inFlightAtStart();
  }

  /** The lesson {@code message} tells, or null if it is not one; never throws. */
  static @Nullable Heard decode(String message) {
    String[] fields = message.split(String.valueOf(SEPARATOR), -1);
    if ((fields.length != FIELDS && fields.length != OLDER_FIELDS) || fields[0].isEmpty() || fields[0].charAt(0) == 'v') {
      return null; // not this format, or a later version of it
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
      int inFlightAtStart = fields.length == FIELDS ? Integer.parseInt(fields[5]) : 0;
      return new Heard(fields[0], new Lesson(Hostpace.checkKey(fields[1]), refused, retryAfterNanos, tookNanos, inFlightAtStart));
    } catch (IllegalArgumentException notALesson) { // a number that does not parse, a key no engine writes, or a field Lesson refuses
      return null;
    }
  }
}
