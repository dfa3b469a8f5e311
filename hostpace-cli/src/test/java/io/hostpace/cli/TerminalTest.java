package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether standard error is a terminal, by the link of its descriptor (a folder of links playing
 * {@code /proc/self/fd}), and how wide the summary may be.
 */
class TerminalTest {

  @TempDir Path fd;

  Terminal standardErrorLinkedTo(String target, boolean console) throws IOException {
    Files.createSymbolicLink(fd.resolve("2"), Path.of(target));
    return new Terminal(fd.resolve("2"), console);
  }

  @Test
  void standardErrorOnAPseudoTerminalOrATtyIsATerminalWhateverTheConsoleSays() throws IOException {
    assertThat(standardErrorLinkedTo("/dev/pts/3", false).standardErrorIsTerminal()).isTrue();
    Files.delete(fd.resolve("2"));
    assertThat(standardErrorLinkedTo("/dev/tty1", false).standardErrorIsTerminal()).isTrue();
  }

  @Test
  void standardErrorToAFileOrAPipeIsNoTerminalEvenWithAConsole() throws IOException {
    assertThat(standardErrorLinkedTo("/home/me/errors.log", true).standardErrorIsTerminal()).isFalse();
    Files.delete(fd.resolve("2"));
    assertThat(standardErrorLinkedTo("pipe:[40127]", true).standardErrorIsTerminal()).isFalse();
    Files.delete(fd.resolve("2"));
    assertThat(standardErrorLinkedTo("/dev/null", true).standardErrorIsTerminal()).isFalse();
  }

  @Test
  void aClosedStandardErrorIsNoTerminal() {
    assertThat(new Terminal(fd.resolve("2"), true).standardErrorIsTerminal()).isFalse();
  }

  @Test
  void withoutDescriptorLinksTheConsoleDecides() {
    Path none = fd.resolve("no-proc").resolve("2");
    assertThat(new Terminal(none, true).standardErrorIsTerminal()).isTrue();
    assertThat(new Terminal(none, false).standardErrorIsTerminal()).isFalse();
  }

  @Test
  void theWidthIsColumnsWhenThatIsAPositiveNumberElse80() {
    assertThat(Terminal.columns(Map.of("COLUMNS", "132"))).isEqualTo(132);
    assertThat(Terminal.columns(Map.of("COLUMNS", " 60 "))).isEqualTo(60);
    assertThat(Terminal.columns(Map.of())).isEqualTo(80);
    assertThat(Terminal.columns(Map.of("COLUMNS", "wide"))).isEqualTo(80);
    assertThat(Terminal.columns(Map.of("COLUMNS", "0"))).isEqualTo(80);
  }
}
