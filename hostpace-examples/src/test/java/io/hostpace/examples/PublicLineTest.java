package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * SPEC I9, read from what the build made: core's module descriptor exports the API and the SPI to
 * everyone and {@code io.hostpace.internal} only to the project's own modules, each of them named
 * by a module of this reactor, and to every module whose main code uses it; core's jar holds no
 * test servers, which {@code hostpace-testing}'s jar holds.
 */
class PublicLineTest {

  private static final Path ROOT = Path.of(Objects.requireNonNull(
      System.getProperty("hostpace.root"), "the system property hostpace.root (the project's root folder)"));
  private static final Pattern MODULE_NAME = Pattern.compile("<module\\.name>([^<]+)</module\\.name>");
  private static final String INTERNAL = "io.hostpace.internal";

  @Test
  void I9_coreExportsItsApiToAllAndItsInternalPackageOnlyToTheProjectsModulesThatUseIt() throws IOException {
    ModuleDescriptor core;
    try (InputStream in = Files.newInputStream(ROOT.resolve("hostpace-core/target/classes/module-info.class"))) {
      core = ModuleDescriptor.read(in);
    }
    assertThat(core.name()).isEqualTo("io.hostpace");
    Map<String, Set<String>> exports = new TreeMap<>();
    for (Exports export : core.exports()) {
      exports.put(export.source(), new TreeSet<>(export.targets()));
    }
    assertThat(exports.keySet()).as("core's exported packages")
        .containsExactlyInAnyOrder("io.hostpace", "io.hostpace.spi", "io.hostpace.timeout", INTERNAL);
    assertThat(exports.get("io.hostpace")).as("io.hostpace is exported to all").isEmpty();
    assertThat(exports.get("io.hostpace.spi")).as("io.hostpace.spi is exported to all").isEmpty();
    assertThat(exports.get("io.hostpace.timeout")).as("io.hostpace.timeout is exported to all").isEmpty();

    Map<String, String> modules = moduleNames();
    assertThat(exports.get(INTERNAL)).as("the modules " + INTERNAL + " is exported to, all of this project")
        .isNotEmpty()
        .isSubsetOf(modules.values());
    Set<String> using = new TreeSet<>();
    for (Map.Entry<String, String> module : modules.entrySet()) {
      if (!module.getKey().equals("hostpace-core") && mainCodeImports(ROOT.resolve(module.getKey()), INTERNAL)) {
        using.add(module.getValue());
      }
    }
    assertThat(using).as("the modules whose main code uses " + INTERNAL).isNotEmpty();
    assertThat(exports.get(INTERNAL)).as("the modules " + INTERNAL + " is exported to").containsAll(using);
  }

  @Test
  void I9_theTestServersShipInHostpaceTestingNotInCoresJar() throws IOException {
    assertThat(entries("hostpace-core")).as("hostpace-core's jar")
        .noneMatch(name -> name.startsWith("io/hostpace/testing/"))
        .contains("io/hostpace/Hostpace.class", "io/hostpace/internal/RetryAfter.class");
    assertThat(entries("hostpace-testing")).as("hostpace-testing's jar")
        .contains("io/hostpace/testing/ScriptedExchange.class", "io/hostpace/testing/RefusingServer.class",
            "io/hostpace/testing/LocalFleet.class");
  }

  /** Each module's folder name and its module name, from its POM's {@code module.name}. */
  private static Map<String, String> moduleNames() throws IOException {
    Map<String, String> names = new TreeMap<>();
    try (Stream<Path> folders = Files.list(ROOT)) {
      for (Path folder : folders.filter(f -> Files.isRegularFile(f.resolve("pom.xml"))).toList()) {
        Matcher name = MODULE_NAME.matcher(Files.readString(folder.resolve("pom.xml"), StandardCharsets.UTF_8));
        if (name.find()) {
          names.put(folder.getFileName().toString(), name.group(1));
        }
      }
    }
    assertThat(names).as("the modules' names").containsEntry("hostpace-core", "io.hostpace").hasSizeGreaterThan(10);
    return names;
  }

  private static boolean mainCodeImports(Path module, String pkg) throws IOException {
    Path sources = module.resolve("src/main/java");
    if (!Files.isDirectory(sources)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        if (Files.readString(file, StandardCharsets.UTF_8).contains("import " + pkg + ".")) {
          return true;
        }
      }
    }
    return false;
  }

  private static Set<String> entries(String artifactId) throws IOException {
    Path target = ROOT.resolve(artifactId).resolve("target");
    String version;
    try (Stream<Path> jars = Files.list(target)) {
      version = jars.map(jar -> jar.getFileName().toString())
          .filter(name -> name.startsWith(artifactId + "-") && name.endsWith(".jar")
              && !name.endsWith("-sources.jar") && !name.endsWith("-javadoc.jar"))
          .findFirst().orElseThrow(() -> new AssertionError(artifactId + " has no jar in " + target));
    }
    try (JarFile jar = new JarFile(target.resolve(version).toFile())) {
      return jar.stream().map(entry -> entry.getName()).collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
