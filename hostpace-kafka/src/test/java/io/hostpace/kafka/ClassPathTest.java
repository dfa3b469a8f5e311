package io.hostpace.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * SPEC I4: spring-web and spring-webflux are optional. Each probe runs in a class loader of the
 * test class path without one or both of them, and reports what the handler decided there.
 */
class ClassPathTest {

  @Test
  void I4_withBothPresentBothAreRecognised() {
    assertThat(RefusalReader.springWebPresent()).isTrue();
    assertThat(RefusalReader.webFluxPresent()).isTrue();
  }

  @Test
  void I4_withSpringWebButNotWebFluxRestClientRefusalsAreStillRecognised() throws Exception {
    String report = runIsolated("io.hostpace.kafka.ClassPathProbes$WithoutWebFlux",
        entry -> !entry.contains("spring-webflux"));

    assertThat(report).isEqualTo("webflux absent; 429 Retry-After: 3 -> 3000; 500 -> 1000");
  }

  @Test
  void I4_withNeitherSpringWebNorWebFluxARefusalMarkedByTheInterfaceIsStillRecognised() throws Exception {
    String report = runIsolated("io.hostpace.kafka.ClassPathProbes$WithoutSpringWeb",
        entry -> !entry.contains("spring-webflux") && !entry.contains("spring-web-"));

    assertThat(report).isEqualTo("spring-web absent; Refusal Retry-After: 2 -> 2000; other -> 1000");
  }

  /** Runs {@code probe} in a class loader of the test class path entries whose file names {@code keep} accepts. */
  private static String runIsolated(String probe, Predicate<String> keep) throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : testClassPath()) {
      if (keep.test(new File(entry).getName())) {
        urls.add(url(entry));
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      @SuppressWarnings("unchecked")
      Callable<String> callable = (Callable<String>) loader.loadClass(probe).getDeclaredConstructor().newInstance();
      return callable.call();
    }
  }

  /** The test class path: Surefire names it in a property of its own, as it may launch the JVM from a manifest-only jar. */
  private static List<String> testClassPath() {
    String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> entries = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    assertThat(entries).anyMatch(entry -> entry.contains("spring-kafka-"));
    return entries;
  }

  private static URL url(String entry) {
    try {
      return new File(entry).toURI().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("class path entry '" + entry + "' is not a path", e);
    }
  }
}
