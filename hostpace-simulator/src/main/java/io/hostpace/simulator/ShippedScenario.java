package io.hostpace.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * A scenario shipped in this jar, run by its name: {@code hostpace simulate pacing qlever-like}.
 * The build copies {@code scenarios/KIND/NAME.json} to the resources at
 * {@code io/hostpace/simulator/scenarios/KIND/NAME.json}; the names are read from the jar (or the
 * classes folder) itself, so that a scenario added to the folder is listed with no index to keep.
 *
 * <p>Its description is the scenario's leading {@code //} comment (pacing scenarios open with one)
 * or else its {@code "description"} field (timeout scenarios, which are plain JSON).
 *
 * @param kind {@link #PACING} or {@link #TIMEOUTS}
 * @param name the file's name without {@code .json}
 * @param description one line that says what the scenario is
 */
public record ShippedScenario(String kind, String name, String description) {

  /** The kind of scenarios {@code hostpace simulate pacing} runs. */
  public static final String PACING = "pacing";
  /** The kind of scenarios {@code hostpace simulate timeouts} runs. */
  public static final String TIMEOUTS = "timeouts";

  private static final String ROOT = "scenarios/";

  /** Every shipped scenario of {@code kind}, by name. */
  public static List<ShippedScenario> all(String kind) {
    List<ShippedScenario> scenarios = new ArrayList<>();
    for (String name : names(kind)) {
      scenarios.add(new ShippedScenario(kind, name, describe(read(kind, name))));
    }
    scenarios.sort(Comparator.comparing(ShippedScenario::name));
    return List.copyOf(scenarios);
  }

  /** The shipped scenario of {@code kind} called {@code name}, if there is one. */
  public static Optional<ShippedScenario> named(String kind, String name) {
    if (!names(kind).contains(name)) {
      return Optional.empty();
    }
    return Optional.of(new ShippedScenario(kind, name, describe(read(kind, name))));
  }

  /** The scenario's JSON text, as shipped. */
  public String text() {
    return read(kind, name);
  }

  private static String read(String kind, String name) {
    String resource = ROOT + kind + "/" + name + ".json";
    try (InputStream in = ShippedScenario.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + resource + " beside " + ShippedScenario.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the shipped scenario " + resource, e);
    }
  }

  /** The names of the {@code .json} resources under {@code scenarios/KIND/}, from a jar or a folder. */
  private static List<String> names(String kind) {
    URL folder = ShippedScenario.class.getResource(ROOT + kind);
    if (folder == null) {
      return List.of();
    }
    try {
      if (folder.getProtocol().equals("jar")) {
        JarURLConnection connection = (JarURLConnection) folder.openConnection();
        connection.setUseCaches(false);
        String prefix = connection.getEntryName() + "/";
        try (JarFile jar = connection.getJarFile()) {
          return jar.stream().map(JarEntry::getName)
              .filter(n -> n.startsWith(prefix) && n.indexOf('/', prefix.length()) < 0 && n.endsWith(".json"))
              .map(n -> n.substring(prefix.length(), n.length() - ".json".length()))
              .sorted().toList();
        }
      }
      try (Stream<Path> files = Files.list(Path.of(folder.toURI()))) {
        return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
            .map(n -> n.substring(0, n.length() - ".json".length())).sorted().toList();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the shipped scenarios at " + folder, e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot list the shipped scenarios at " + folder, e);
    }
  }

  /** The leading {@code //} comment, else the {@code "description"} field, else nothing. */
  static String describe(String text) {
    String first = text.strip().lines().findFirst().orElse("");
    if (first.startsWith("//")) {
      return first.substring(2).strip();
    }
    try {
      JsonNode description = ScenarioJson.MAPPER.readTree(text).get("description");
      return description != null && description.isTextual() ? description.asText() : "";
    } catch (IOException e) {
      return "";
    }
  }
}
