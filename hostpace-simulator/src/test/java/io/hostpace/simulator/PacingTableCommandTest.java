package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pacing-table} over several scenario files. */
class PacingTableCommandTest {

  @Test
  void aBadScenarioAmongSeveralIsNamedByItsFileAndExitStatus2(@TempDir Path dir) throws IOException {
    Path good = dir.resolve("good.json");
    Files.writeString(good, "{\"servers\":[{\"host\":\"a.test\",\"model\":\"token-bucket\",\"rate\":1.0}],"
        + "\"clients\":[{\"host\":\"a.test\",\"requests\":3}],\"policies\":[\"hostpace\"]}");
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"servers\":[{\"host\":\"a.test\",\"model\":\"bucket\"}],\"clients\":[],\"policies\":[]}");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Main.run(new String[] {"pacing-table", good.toString(), bad.toString()},
        new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(bad + ": servers[0].model: expected \"token-bucket\", "
        + "\"fixed-window\" or \"gate\", got \"bucket\"" + System.lineSeparator());
  }
}
