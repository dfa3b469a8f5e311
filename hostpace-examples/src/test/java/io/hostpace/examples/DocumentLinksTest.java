package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README is a front page and the reference lives in {@code docs/}: the README stays short,
 * links every page of {@code docs/}, and every link of the README and the pages leads somewhere,
 * a file of the repository and, after a {@code #}, a heading of it (as GitHub makes a heading's
 * anchor: lower case, spaces as {@code -}, other punctuation dropped).
 */
class DocumentLinksTest {

  private static final Path ROOT = Path.of(Objects.requireNonNull(
      System.getProperty("hostpace.root"), "the system property hostpace.root (the project's root folder)"));
  /** The most lines the front page may have. */
  private static final int FRONT_PAGE_LINES = 400;
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  @Test
  void I8_theReadmeIsAFrontPageThatLinksEveryPageOfDocs() throws IOException {
    List<String> readme = Files.readAllLines(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    assertThat(readme).as("README.md's lines").hasSizeLessThanOrEqualTo(FRONT_PAGE_LINES);
    Set<String> linked = new LinkedHashSet<>();
    for (String line : outsideFences(readme)) {
      Matcher link = LINK.matcher(line);
      while (link.find()) {
        linked.add(link.group(1).replaceFirst("#.*", ""));
      }
    }
    for (Path page : pages()) {
      assertThat(linked).as("the README's links").contains("docs/" + page.getFileName());
    }
  }

  @Test
  void I8_everyLinkOfTheDocumentsLeadsToAFileAndHeadingThatExist() throws IOException {
    List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    documents.addAll(pages());
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path document : documents) {
      for (String line : outsideFences(Files.readAllLines(document, StandardCharsets.UTF_8))) {
        Matcher link = LINK.matcher(line);
        while (link.find()) {
          String target = link.group(1);
          if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("mailto:")) {
            continue;
          }
          checked++;
          int hash = target.indexOf('#');
          String file = hash < 0 ? target : target.substring(0, hash);
          Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
          String where = ROOT.relativize(document) + ": " + target;
          if (!Files.exists(resolved)) {
            broken.add(where + " (no such file)");
          } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
            broken.add(where + " (no such heading)");
          }
        }
      }
    }
    assertThat(checked).as("links checked").isGreaterThan(10);
    assertThat(broken).as("links that lead nowhere").isEmpty();
  }

  @Test
  void anchorsAreMadeAsGitHubMakesThem() {
    assertThat(anchor("A paced `java.net.http.HttpClient`")).isEqualTo("a-paced-javanethttphttpclient");
    assertThat(anchor("One file for the application and the command line: `--config`"))
        .isEqualTo("one-file-for-the-application-and-the-command-line---config");
    assertThat(anchor("Contexts: limits per query or batch")).isEqualTo("contexts-limits-per-query-or-batch");
  }

  private static List<Path> pages() throws IOException {
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().toList();
    }
  }

  /** The lines of a Markdown file that are not inside a fenced block. */
  private static List<String> outsideFences(List<String> lines) {
    List<String> outside = new ArrayList<>();
    boolean fenced = false;
    for (String line : lines) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced) {
        outside.add(line);
      }
    }
    return outside;
  }

  private static Set<String> anchors(Path file) throws IOException {
    Set<String> anchors = new LinkedHashSet<>();
    if (!file.getFileName().toString().endsWith(".md")) {
      return anchors;
    }
    for (String line : outsideFences(Files.readAllLines(file, StandardCharsets.UTF_8))) {
      if (line.startsWith("#")) {
        anchors.add(anchor(line.replaceFirst("^#+\\s*", "")));
      }
    }
    return anchors;
  }

  /** A heading's anchor, as GitHub makes it. */
  static String anchor(String heading) {
    return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
  }
}
