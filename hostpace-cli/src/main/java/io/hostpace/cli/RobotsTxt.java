package io.hostpace.cli;

import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Crawl-delay} a robots.txt asks of a crawler: the seconds it asks to be left between
 * two requests, read for the crawler's product token or else for {@code *}.
 *
 * <p>Groups are read as RFC 9309 reads them: one or more {@code User-agent} lines, then the lines
 * of the group, up to the next {@code User-agent} line that follows one of them. A group names the
 * crawler when one of its user agents is the crawler's token (the part of its User-Agent before the
 * first {@code /} or space), in any case; the groups that name it are read, else those of
 * {@code *}. Of several {@code Crawl-delay} lines that apply, the longest holds. A delay is seconds,
 * a fraction allowed ({@code 1.5}); anything else ({@code soon}, {@code -1}, {@code 0}) asks for
 * nothing. Nothing here throws.
 */
final class RobotsTxt {

  /** The longest delay taken: a day; a longer one is cut to it. */
  static final Duration LONGEST = Duration.ofDays(1);

  private RobotsTxt() {}

  /** The product token of {@code userAgent}: {@code crawler} of {@code crawler/2.0 (ops@example.org)}. */
  static String token(String userAgent) {
    String token = userAgent.strip().split("[/\\s]", 2)[0];
    return token.toLowerCase(Locale.ROOT);
  }

  /** The delay {@code robots} asks of the crawler whose token is {@code token}; null when it asks none. */
  static @Nullable Duration crawlDelay(String robots, String token) {
    String crawler = token.toLowerCase(Locale.ROOT);
    double named = -1;
    double anyone = -1;
    boolean groupNamesIt = false;
    boolean groupIsAnyone = false;
    boolean inAgents = false; // the last line read was a User-agent line
    for (String raw : robots.split("\r\n|\r|\n")) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
      int colon = line.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String field = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).strip();
      if (field.equals("user-agent")) {
        if (!inAgents) {
          groupNamesIt = false; // a new group begins
          groupIsAnyone = false;
        }
        inAgents = true;
        String agent = value.toLowerCase(Locale.ROOT);
        groupNamesIt |= !crawler.isEmpty() && agent.equals(crawler);
        groupIsAnyone |= agent.equals("*");
        continue;
      }
      inAgents = false;
      if (field.equals("crawl-delay")) {
        double seconds = seconds(value);
        if (groupNamesIt) {
          named = Math.max(named, seconds);
        }
        if (groupIsAnyone) {
          anyone = Math.max(anyone, seconds);
        }
      }
    }
    double seconds = named >= 0 || anyoneIgnored(robots, crawler) ? named : anyone;
    if (!(seconds > 0)) {
      return null;
    }
    return seconds >= LONGEST.toSeconds() ? LONGEST : Duration.ofNanos(Math.round(seconds * 1e9));
  }

  /** Whether a group names the crawler: then the groups of {@code *} are not its. */
  private static boolean anyoneIgnored(String robots, String crawler) {
    for (String raw : robots.split("\r\n|\r|\n")) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
      int colon = line.indexOf(':');
      if (colon > 0 && !crawler.isEmpty() && line.substring(0, colon).strip().equalsIgnoreCase("user-agent")
          && line.substring(colon + 1).strip().equalsIgnoreCase(crawler)) {
        return true;
      }
    }
    return false;
  }

  /** Seconds, digits with an optional fraction; -1 for anything else. */
  private static double seconds(String value) {
    if (!value.matches("\\d{1,9}(\\.\\d{1,9})?")) {
      return -1;
    }
    return Double.parseDouble(value);
  }
}
