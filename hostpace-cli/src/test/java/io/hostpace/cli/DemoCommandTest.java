package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code hostpace demo}, smaller than by default, in this process: plain Jena loses queries that
 * Hostpace completes, and a next run that starts from what the first was taught is refused less.
 */
class DemoCommandTest {

  @Test
  void plainJenaLosesQueriesThatHostpaceCompletesCorrectlyAndTheNextRunIsRefusedLess() {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int status = Main.run(new String[] {"demo", "--queries", "6"}, new ByteArrayInputStream(new byte[0]),
        new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));
    String out = stdout.toString(StandardCharsets.UTF_8);

    assertThat(status).as(out + stderr).isZero();
    Matcher completed = Pattern.compile("queries completed\\s+(\\d+) / 6\\s+(\\d+) / 6\\s+(\\d+) / 6").matcher(out);
    assertThat(completed.find()).as(out).isTrue();
    assertThat(Integer.parseInt(completed.group(1))).isLessThan(6);
    assertThat(completed.group(2)).isEqualTo("6");
    assertThat(completed.group(3)).isEqualTo("6");
    assertThat(out).containsPattern("results correct\\s+\\d+ / 6\\s+6 / 6\\s+6 / 6");
    // The next run starts from what the first was taught: fewer refusals by people than the first.
    Matcher refused = Pattern.compile("refusals by people\\s+([1-9]\\d*)\\s+(\\d+)\\s+(\\d+)").matcher(out);
    assertThat(refused.find()).as(out).isTrue();
    assertThat(Integer.parseInt(refused.group(3))).as(out).isLessThan(Integer.parseInt(refused.group(2)));
  }
}
