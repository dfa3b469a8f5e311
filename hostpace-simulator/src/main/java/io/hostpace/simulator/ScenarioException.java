package io.hostpace.simulator;

import java.nio.file.Path;

/**
 * A scenario that does not parse or makes no sense. Its message starts with the field it is
 * about, as a path into the scenario ({@code stages[3].requests[0]: expected a number of ms,
 * "hang" or {"fail": ...}}), so a command line can print it as it is and exit with status 2.
 */
public final class ScenarioException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String field;

  ScenarioException(String field, String problem) {
    super(field.isEmpty() ? problem : field + ": " + problem);
    this.field = field;
  }

  /** {@code cause} in the scenario file {@code file}: its message with the file's path in front. */
  private ScenarioException(Path file, ScenarioException cause) {
    super(file + ": " + cause.getMessage(), cause);
    this.field = cause.field;
  }

  /** This, said of the scenario file {@code file}, for a command that reads several. */
  ScenarioException in(Path file) {
    return new ScenarioException(file, this);
  }

  /** The path of the field at fault ({@code stages[3].requests[0]}), empty for the scenario as a whole. */
  public String field() {
    return field;
  }
}
