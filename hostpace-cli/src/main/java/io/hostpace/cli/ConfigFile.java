package io.hostpace.cli;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@code hostpace.*} keys of a properties file, the keys the Spring Boot starter reads, as
 * the options of the command line that say the same ({@code hostpace.max-in-flight=8} is
 * {@code --max-in-flight 8}; {@code hostpace.hosts[qlever.dev]=inFlight:1} is
 * {@code --host qlever.dev=inFlight:1}). One file serves an application and the command line:
 * keys outside {@code hostpace.} are not read, and the keys that set up Spring's own clients
 * ({@code hostpace.rest-client.enabled} ...) mean nothing here. A key is matched as Spring Boot
 * matches it, whatever its dashes and case ({@code hostpace.maxInFlight}); any other
 * {@code hostpace.} key is refused by name, as a misspelt option is.
 *
 * <p>A value may name environment variables, as Spring's placeholders do: {@code ${NAME}}, or
 * {@code ${NAME:default}} for one that may be unset, so that a secret (a Redis URI with its
 * password) stays out of the file. The file is read as UTF-8. What is wrong in it names the line
 * where its key was written ({@code --config 'app.properties', line 4: ...}), as an editor numbers
 * it: the file is cut into the lines {@code Properties} reads, each read alone.
 */
final class ConfigFile {

  /** The options a key of the file can give a value, but {@code --host}, which {@code hostpace.hosts[KEY]} gives. */
  static final List<String> READ = List.of("--max-in-flight", "--max-rate", "--retries", "--retry-delay-limit",
      "--timeout-policy", "--timeout", "--user-agent", "--state", "--fleet", "--redis", "--redis-cluster",
      "--fleet-lease");

  /**
   * The options of {@code hostpace proxy} a key {@code hostpace.proxy.NAME} gives, but
   * {@code --route}, which {@code hostpace.proxy.routes[/PREFIX]=URL} gives; {@code --forward}
   * takes a list, its keys separated by commas. Read by that command alone.
   */
  static final List<String> PROXY = List.of("--listen", "--allow-remote", "--max-request-body", "--forward");

  /** The options the keys stand for, by key without {@code hostpace.}, dashes or case. */
  private static final Map<String, String> OPTIONS = options();

  /** The keys that set up Spring's clients: accepted, and nothing to the command line. */
  private static final List<String> SPRING_ONLY =
      List.of("restclient.enabled", "resttemplate.enabled", "webclient.enabled");

  private static final String PREFIX = "hostpace.";

  private final Map<String, String> values;
  private final List<String> hosts;
  private final List<String> routes;
  private final Map<String, String> keys;
  /** Where each option's value, each {@code KEY=SPEC} of {@link #hosts} and each {@code /PREFIX=URL} of {@link #routes} was written, to name in a message. */
  private final Map<String, String> written;

  private ConfigFile(Map<String, String> values, List<String> hosts, List<String> routes, Map<String, String> keys,
      Map<String, String> written) {
    this.values = values;
    this.hosts = hosts;
    this.routes = routes;
    this.keys = keys;
    this.written = written;
  }

  private static Map<String, String> options() {
    Map<String, String> options = new LinkedHashMap<>();
    for (String option : READ) {
      options.put(canonical(option.substring(2)), option);
    }
    for (String option : PROXY) {
      options.put("proxy." + canonical(option.substring(2)), option);
    }
    return options;
  }

  /** A key as Spring Boot compares keys: without dashes or underscores, in lower case. */
  private static String canonical(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  /**
   * Reads {@code file}, its placeholders resolved from {@code environment}.
   *
   * @throws IllegalArgumentException a key, a placeholder or the file is wrong: the message
   *     names the file as {@code --config 'FILE'} and, for what is wrong on a line, the line
   */
  static ConfigFile read(Path file, Function<String, @Nullable String> environment) {
    String named = "--config '" + file + "'";
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IllegalArgumentException(named + ": it is not UTF-8 text");
    } catch (IOException e) {
      throw new IllegalArgumentException(named + ": it cannot be read: " + Main.failure(e));
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (Line line : lines(text)) {
      Properties one = new Properties();
      try {
        one.load(new StringReader(line.text()));
      } catch (IllegalArgumentException e) { // Properties' only complaint: a broken Unicode escape
        throw new IllegalArgumentException(named + ", line " + line.number() + ": " + brokenEscape(line.text()));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e); // a StringReader's: none
      }
      for (String key : one.stringPropertyNames()) {
        entries.remove(key); // a key written again: its last value holds, as Properties has it
        entries.put(key, new Entry(key, one.getProperty(key), line.number()));
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> hostSpecs = new TreeMap<>();
    Map<String, String> routeTargets = new TreeMap<>();
    Map<String, String> keys = new LinkedHashMap<>();
    Map<String, Integer> lineOfOption = new java.util.HashMap<>();
    Map<String, String> written = new java.util.HashMap<>();
    for (Entry entry : entries.values()) {
      String key = entry.key();
      if (!key.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
        continue; // the application's own keys
      }
      String at = named + ", line " + entry.line() + ": ";
      String name = key.substring(PREFIX.length());
      String value;
      try {
        value = resolve(key, entry.value(), environment);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + e.getMessage());
      }
      String host = hostKey(name);
      if (host != null) {
        if (host.isBlank()) {
          throw new IllegalArgumentException(at + "'" + key + "' names no host: expected hostpace.hosts[KEY]=SPEC");
        }
        hostSpecs.put(host, value);
        written.put(host + "=" + value, "'" + key + "' in " + named + ", line " + entry.line());
        continue;
      }
      String prefix = routePrefix(name);
      if (prefix != null) {
        if (prefix.isBlank()) {
          throw new IllegalArgumentException(at + "'" + key + "' names no prefix: expected hostpace.proxy.routes[/PREFIX]=URL");
        }
        routeTargets.put(prefix, value);
        written.put(prefix + "=" + value, "'" + key + "' in " + named + ", line " + entry.line());
        continue;
      }
      String canonical = canonical(name);
      if (SPRING_ONLY.contains(canonical)) {
        continue;
      }
      String option = OPTIONS.get(canonical);
      if (option == null) {
        throw new IllegalArgumentException(at + "'" + key + "' is not a key Hostpace reads: expected hostpace.hosts[KEY], "
            + "hostpace.proxy.routes[/PREFIX] or hostpace. followed by "
            + String.join(", ", OPTIONS.entrySet().stream()
                .map(o -> (o.getKey().startsWith("proxy.") ? "proxy." : "") + o.getValue().substring(2)).toList()));
      }
      if (values.containsKey(option)) {
        throw new IllegalArgumentException(at + "'" + key + "' says again what '" + keys.get(option) + "' says on line "
            + lineOfOption.get(option) + ": give one");
      }
      values.put(option, value);
      keys.put(option, key);
      lineOfOption.put(option, entry.line());
      written.put(option, "'" + key + "' in " + named + ", line " + entry.line());
    }
    List<String> hosts = new ArrayList<>();
    hostSpecs.forEach((host, spec) -> hosts.add(host + "=" + spec));
    List<String> routes = new ArrayList<>();
    routeTargets.forEach((prefix, target) -> routes.add(prefix + "=" + target));
    return new ConfigFile(values, hosts, routes, keys, written);
  }

  /** A key, its value as written (placeholders not yet resolved), and the line it begins on. */
  private record Entry(String key, String value, int line) {}

  /** A logical line of a properties file: its natural lines, as written, and the number of the first. */
  private record Line(int number, String text) {}

  /**
   * The logical lines of {@code text} that hold a key, each numbered as an editor numbers its
   * first line, as {@link Properties#load(java.io.Reader)} reads them: lines end at
   * {@code \n}, {@code \r} or both; a blank line or one whose first character but blanks is
   * {@code #} or {@code !} is skipped; a line that ends in an odd number of backslashes goes
   * on with the next. Each is handed whole to {@code Properties} to read its key and value.
   */
  private static List<Line> lines(String text) {
    List<Line> lines = new ArrayList<>();
    String[] natural = text.split("\\r\\n|\\r|\\n", -1);
    StringBuilder logical = null;
    int first = 0;
    for (int i = 0; i < natural.length; i++) {
      String line = natural[i];
      if (logical == null) {
        int at = 0;
        while (at < line.length() && (line.charAt(at) == ' ' || line.charAt(at) == '\t' || line.charAt(at) == '\f')) {
          at++; // the blanks Properties skips
        }
        if (at == line.length() || line.charAt(at) == '#' || line.charAt(at) == '!') {
          continue;
        }
        logical = new StringBuilder();
        first = i + 1;
      } else {
        logical.append('\n');
      }
      logical.append(line);
      int backslashes = 0;
      while (backslashes < line.length() && line.charAt(line.length() - 1 - backslashes) == '\\') {
        backslashes++;
      }
      if (backslashes % 2 == 0) {
        lines.add(new Line(first, logical.toString()));
        logical = null;
      }
    }
    if (logical != null) {
      lines.add(new Line(first, logical.toString()));
    }
    return lines;
  }

  /**
   * What is wrong with the Unicode escape of {@code line} that {@code Properties} refused: a
   * backslash and {@code u} not followed by four hexadecimal digits.
   */
  private static String brokenEscape(String line) {
    java.util.regex.Matcher escape = java.util.regex.Pattern.compile("(?<!\\\\)(?:\\\\\\\\)*\\\\u(?![0-9a-fA-F]{4})")
        .matcher(line);
    String shown = escape.find() ? line.substring(escape.end() - 2, Math.min(line.length(), escape.end() + 4)) : "\\u";
    return "a \\u escape is not followed by four hexadecimal digits (" + Printable.line(shown) + ")";
  }

  /** The prefix of {@code proxy.routes[/PREFIX]}; null when {@code name} is not one. */
  private static @Nullable String routePrefix(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.startsWith("proxy.routes[") && name.endsWith("]")) {
      return name.substring("proxy.routes[".length(), name.length() - 1);
    }
    return lower.equals("proxy.routes") ? "" : null;
  }

  /** The host of {@code hosts[KEY]} or {@code hosts.KEY}; null when {@code name} is not one. */
  private static @Nullable String hostKey(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.startsWith("hosts[") && name.endsWith("]")) {
      return name.substring("hosts[".length(), name.length() - 1);
    }
    if (lower.startsWith("hosts.")) {
      return name.substring("hosts.".length());
    }
    return lower.equals("hosts") ? "" : null;
  }

  /** {@code value} with each {@code ${NAME}} or {@code ${NAME:default}} replaced by the environment's. */
  private static String resolve(String key, String value, Function<String, @Nullable String> environment) {
    StringBuilder resolved = new StringBuilder();
    int at = 0;
    while (true) {
      int start = value.indexOf("${", at);
      if (start < 0) {
        return resolved.append(value, at, value.length()).toString();
      }
      int end = value.indexOf('}', start);
      if (end < 0) {
        throw new IllegalArgumentException("'" + key + "' has a '${' with no '}'");
      }
      String reference = value.substring(start + 2, end);
      int colon = reference.indexOf(':');
      String name = colon < 0 ? reference : reference.substring(0, colon);
      String found = name.isEmpty() ? null : environment.apply(name);
      if (found == null && colon < 0) {
        throw new IllegalArgumentException("'" + key + "' names the environment variable " + name + ", which is not set"
            + " (write ${" + name + ":DEFAULT} for one that may be unset)");
      }
      resolved.append(value, at, start).append(found != null ? found : reference.substring(colon + 1));
      at = end + 1;
    }
  }

  /** The value the file gives {@code option} (such as {@code --retries}), or null. */
  @Nullable String value(String option) {
    return values.get(option);
  }

  /**
   * Where {@code option}'s value, a {@code KEY=SPEC} of {@link #hosts} or a {@code /PREFIX=URL} of
   * {@link #routes} was written, to name in a message: {@code 'hostpace.retries' in --config
   * 'app.properties', line 3}; null when the file does not give it.
   */
  @Nullable String whereOf(String optionHostOrRoute) {
    return written.get(optionHostOrRoute);
  }

  /** The file's host limits, each as {@code --host} takes it, {@code KEY=SPEC}, sorted by key. */
  List<String> hosts() {
    return hosts;
  }

  /**
   * The file's {@code KEY=VALUE} entries ({@code --host}'s or {@code --route}'s) whose key the
   * command line's {@code given} do not name, then those given: the command line's stand over the
   * file's.
   */
  static List<String> merged(List<String> fromFile, List<String> given) {
    java.util.Set<String> keysGiven = new java.util.HashSet<>();
    for (String entry : given) {
      keysGiven.add(entry.substring(0, Math.max(0, entry.indexOf('='))).strip());
    }
    List<String> merged = new ArrayList<>();
    for (String entry : fromFile) {
      if (!keysGiven.contains(entry.substring(0, entry.indexOf('=')).strip())) {
        merged.add(entry);
      }
    }
    merged.addAll(given);
    return merged;
  }

  /** The routes of {@code hostpace.proxy.routes[/PREFIX]=URL}, as {@code --route} takes them: {@code /PREFIX=URL}. */
  List<String> routes() {
    return routes;
  }
}
