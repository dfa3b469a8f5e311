package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The scenarios of {@code scenarios/} are resources, listed and read by name. */
class ShippedScenarioTest {

  static List<String> files(String kind) throws IOException {
    try (Stream<Path> files = Files.list(Path.of("scenarios", kind))) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
          .map(n -> n.substring(0, n.length() - 5)).sorted().toList();
    }
  }

  @Test
  void everyScenarioFileIsListedByNameWithItsDescription() throws IOException {
    for (String kind : List.of(ShippedScenario.PACING, ShippedScenario.TIMEOUTS)) {
      List<ShippedScenario> shipped = ShippedScenario.all(kind);

      assertThat(shipped).extracting(ShippedScenario::name).as(kind).containsExactlyElementsOf(files(kind));
      assertThat(shipped).allSatisfy(s -> assertThat(s.description()).as(s.name()).isNotBlank().doesNotContain("\n"));
    }
    assertThat(ShippedScenario.named("pacing", "qlever-like").orElseThrow().description())
        .isEqualTo("QLever's Wikidata endpoint: one request a second, the rest refused with a bare 429.");
    assertThat(ShippedScenario.named("timeouts", "dead-endpoint").orElseThrow().description())
        .isEqualTo("The same stages, every request refused within 5 ms.");
  }

  @Test
  void aShippedScenarioReadsAsItsFile() throws IOException {
    assertThat(ShippedScenario.named("pacing", "kgf-like").orElseThrow().text())
        .isEqualTo(Files.readString(Path.of("scenarios", "pacing", "kgf-like.json"), StandardCharsets.UTF_8));
  }

  @Test
  void aNameOfNoShippedScenarioOrOfAnotherKindFindsNone() {
    assertThat(ShippedScenario.named("pacing", "qlever")).isEmpty();
    assertThat(ShippedScenario.named("timeouts", "qlever-like")).isEmpty();
    assertThat(ShippedScenario.named("pacing", "README")).isEmpty();
  }

  @Test
  void theDescriptionIsTheLeadingCommentElseTheDescriptionField() {
    assertThat(ShippedScenario.describe("// A server.\n{ \"seed\": 1 }")).isEqualTo("A server.");
    assertThat(ShippedScenario.describe("{ \"description\": \"Stages.\", \"stages\": [] }")).isEqualTo("Stages.");
    assertThat(ShippedScenario.describe("{ \"stages\": [] }")).isEmpty();
  }
}
