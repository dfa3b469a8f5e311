package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command line's jar, as {@code bin/hostpace} runs it, holds what its commands need at run
 * time: the tests of {@code hostpace-cli} run on the test class path, which holds test-scope
 * dependencies the jar leaves out, so only the jar itself shows a class missing from it. Each
 * command runs as a process of its own against servers it starts on 127.0.0.1.
 */
class CommandLineJarTest {

  private static final Path ROOT = Path.of(Objects.requireNonNull(
      System.getProperty("hostpace.root"), "the system property hostpace.root (the project's root folder)"));
  private static final Path JAR = ROOT.resolve("hostpace-cli/target/hostpace.jar");

  @Test
  void I8_theJarRunsTheDemoOnItsOwnEndpoints() throws Exception {
    Ran demo = run("demo", "--queries", "2");
    assertThat(demo.status()).as(demo.output()).isZero();
    assertThat(demo.output()).contains("queries completed", "Hostpace completed every query");
  }

  @Test
  void I8_theJarRunsAShippedScenario() throws Exception {
    Ran simulated = run("simulate", "pacing", "qlever-like");
    assertThat(simulated.status()).as(simulated.output()).isZero();
    assertThat(simulated.output()).contains("ideal finish", "hostpace");
  }

  @Test
  void I8_theJarServesTheProxyAndItsMetrics() throws Exception {
    assertThat(JAR).isRegularFile();
    Process proxy = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        JAR.toString(), "proxy", "--listen", "127.0.0.1:0", "--route", "/nowhere=http://127.0.0.1:9")
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      java.io.BufferedReader out = new java.io.BufferedReader(
          new java.io.InputStreamReader(proxy.getInputStream(), StandardCharsets.UTF_8));
      String first = out.readLine();
      assertThat(first).as("the proxy's first line").startsWith("hostpace proxy on http://127.0.0.1:");
      String base = first.substring("hostpace proxy on ".length(), first.indexOf(' ', "hostpace proxy on ".length()));
      java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
      java.net.http.HttpResponse<String> unreachable = client.send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/nowhere/x")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(unreachable.statusCode()).isEqualTo(502);
      java.net.http.HttpResponse<String> metrics = client.send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/hostpace/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("hostpace_attempts_started_total");
    } finally {
      proxy.destroyForcibly();
      proxy.waitFor(1, TimeUnit.MINUTES);
    }
  }

  private record Ran(int status, String output) {}

  /** Runs {@code java -jar hostpace.jar args}, standard output and error together, and waits for it to exit. */
  private static Ran run(String... args) throws IOException, InterruptedException {
    assertThat(JAR).as("the command line's jar, which the build makes before this module's tests").isRegularFile();
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes(); // until it exits and closes its output
    if (!process.waitFor(1, TimeUnit.MINUTES)) {
      process.destroyForcibly();
    }
    return new Ran(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
