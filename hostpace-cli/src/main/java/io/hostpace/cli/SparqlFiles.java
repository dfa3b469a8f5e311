package io.hostpace.cli;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import picocli.CommandLine.ParameterException;

/**
 * The files the values of {@code sparql --query-file} or {@code --update-file} name, in the order
 * given: a value is a file; a glob, which the command expands itself ({@code 'queries/*.rq'},
 * Java's {@code glob:} syntax, so a shell that did not expand it changes nothing), its matches
 * sorted by path; or a folder, its files with one of the option's extensions ({@code .rq} and
 * {@code .sparql} for queries), sorted by name. A glob that matches no file, and a folder that
 * holds none, are usage errors that name the option and the value. A file named twice is taken
 * once, where it first came.
 */
final class SparqlFiles {

  /** The characters that make a value a glob rather than a file name. */
  private static final String GLOB = "*?[{";

  private SparqlFiles() {}

  /** The files {@code values}, given to {@code option}, name; a folder's are those ending in one of {@code extensions}. */
  static List<Path> expand(String option, List<String> values, List<String> extensions,
      Function<String, ParameterException> usage) {
    Set<Path> files = new LinkedHashSet<>();
    Set<Path> seen = new java.util.HashSet<>();
    for (String value : values) {
      if (value.isEmpty()) {
        throw usage.apply(option + " is empty: expected a file, a folder or a glob such as 'queries/*.rq'");
      }
      List<Path> named = isGlob(value) ? glob(option, value, usage) : fileOrFolder(option, value, extensions, usage);
      for (Path file : named) {
        if (seen.add(file.toAbsolutePath().normalize())) {
          files.add(file);
        }
      }
    }
    return new ArrayList<>(files);
  }

  private static boolean isGlob(String value) {
    return value.chars().anyMatch(c -> GLOB.indexOf(c) >= 0);
  }

  private static List<Path> fileOrFolder(String option, String value, List<String> extensions,
      Function<String, ParameterException> usage) {
    Path path = FileOption.path(option, value, usage);
    if (!Files.isDirectory(path)) {
      return List.of(path); // read, and checked, as a file
    }
    List<Path> found;
    try (Stream<Path> listed = Files.list(path)) {
      found = listed.filter(Files::isRegularFile)
          .filter(file -> extensions.stream().anyMatch(file.getFileName().toString()::endsWith))
          .sorted(Comparator.comparing(file -> file.getFileName().toString()))
          .toList();
    } catch (IOException e) {
      throw usage.apply(option + " '" + value + "' cannot be read: " + Main.failure(e));
    }
    if (found.isEmpty()) {
      throw usage.apply(option + " '" + value + "' is a folder that holds no " + String.join(" or ", extensions) + " file");
    }
    return found;
  }

  /**
   * The regular files {@code pattern} matches: the folders before its first segment with a glob
   * character are walked, as deep as its segments go (any depth for {@code **}), and each path
   * found is matched as the pattern is written, relative or absolute.
   */
  private static List<Path> glob(String option, String pattern, Function<String, ParameterException> usage) {
    String[] segments = pattern.split("/", -1);
    int fixed = 0;
    while (fixed < segments.length - 1 && !isGlob(segments[fixed])) {
      fixed++;
    }
    String prefix = String.join("/", java.util.Arrays.copyOfRange(segments, 0, fixed));
    if (prefix.isEmpty() && pattern.startsWith("/")) {
      prefix = "/";
    }
    int depth = pattern.contains("**") ? Integer.MAX_VALUE : segments.length - fixed;
    PathMatcher matcher;
    Path base;
    try {
      matcher = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
      base = Path.of(prefix);
    } catch (IllegalArgumentException e) { // PatternSyntaxException, InvalidPathException
      throw usage.apply(option + " '" + pattern + "' is not a glob: " + e.getMessage());
    }
    Path walked = prefix.isEmpty() ? Path.of(".") : base;
    List<Path> matches = new ArrayList<>();
    if (Files.isDirectory(walked)) {
      try (Stream<Path> paths = Files.walk(walked, depth)) {
        paths.filter(Files::isRegularFile)
            .map(path -> base.resolve(walked.relativize(path)))
            .filter(matcher::matches)
            .sorted(Comparator.comparing(Path::toString))
            .forEach(matches::add);
      } catch (IOException e) {
        throw usage.apply(option + " '" + pattern + "' cannot be expanded: " + Main.failure(e));
      } catch (java.io.UncheckedIOException e) { // a folder under it that cannot be read
        throw usage.apply(option + " '" + pattern + "' cannot be expanded: " + Main.failure(java.util.Objects.requireNonNullElse(e.getCause(), e)));
      }
    }
    if (matches.isEmpty()) {
      throw usage.apply(option + " '" + pattern + "' matches no file");
    }
    return matches;
  }
}
