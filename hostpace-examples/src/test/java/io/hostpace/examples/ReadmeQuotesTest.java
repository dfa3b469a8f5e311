package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README quotes the examples as they are: each example marks what is quoted between
 * {@code // tag::name[]} and {@code // end::name[]} (its imports, then its methods), and the
 * README must hold those parts, the methods unindented, joined by one blank line.
 */
class ReadmeQuotesTest {

  private static final Path ROOT = Path.of(Objects.requireNonNull(
      System.getProperty("hostpace.root"), "the system property hostpace.root (the project's root folder)"));
  private static final Pattern REGION = Pattern.compile(
      "(?m)^([ \\t]*)// tag::([a-z0-9]+)\\[\\]\\n(.*?)^[ \\t]*// end::\\2\\[\\]\\n", Pattern.DOTALL);

  @Test
  void I8_theReadmeQuotesEveryExampleAsTheBuildCompilesIt() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    Map<String, String> quotes = quotes(ROOT.resolve("hostpace-examples/src/main/java"));
    assertThat(quotes).containsKeys("jdk", "jena", "okhttp", "httpclient5", "spring", "kafka");
    for (Map.Entry<String, String> quote : quotes.entrySet()) {
      assertThat(readme).as("the README's quote of the example '%s'", quote.getKey()).contains(quote.getValue());
    }
  }

  /** Each tag's regions, unindented and joined by a blank line. */
  private static Map<String, String> quotes(Path sources) throws IOException {
    Map<String, List<String>> regions = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        Matcher matcher = REGION.matcher(Files.readString(file, StandardCharsets.UTF_8));
        while (matcher.find()) {
          String indent = matcher.group(1);
          String text = Pattern.compile("(?m)^" + Pattern.quote(indent)).matcher(matcher.group(3)).replaceAll("");
          regions.computeIfAbsent(matcher.group(2), tag -> new ArrayList<>()).add(text);
        }
      }
    }
    Map<String, String> quotes = new LinkedHashMap<>();
    regions.forEach((tag, parts) -> quotes.put(tag, String.join("\n", parts)));
    return quotes;
  }
}
