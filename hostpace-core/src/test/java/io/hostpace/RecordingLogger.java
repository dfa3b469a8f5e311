package io.hostpace;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A {@code System.Logger} that keeps every line it is asked to log, whatever its level, so a
 * test sees also what should not have been built; {@link #isLoggable} answers from the level set.
 */
public final class RecordingLogger implements System.Logger {

  /** One line asked for. */
  public record Line(Level level, String message, @Nullable Throwable thrown) {}

  private final Level lowest;
  public final List<Line> lines = new CopyOnWriteArrayList<>();

  /** Loggable from {@code lowest} up: {@code DEBUG} for a test of decisions, {@code INFO} for one with them off. */
  public RecordingLogger(Level lowest) {
    this.lowest = lowest;
  }

  public List<Line> at(Level level) {
    return lines.stream().filter(line -> line.level() == level).toList();
  }

  public List<String> messagesAt(Level level) {
    return at(level).stream().map(Line::message).toList();
  }

  @Override
  public String getName() {
    return "recording";
  }

  @Override
  public boolean isLoggable(Level level) {
    return level.getSeverity() >= lowest.getSeverity();
  }

  @Override
  public void log(Level level, @Nullable ResourceBundle bundle, String message, @Nullable Throwable thrown) {
    lines.add(new Line(level, message, thrown));
  }

  @Override
  public void log(Level level, @Nullable ResourceBundle bundle, String format, @Nullable Object... params) {
    lines.add(new Line(level, params == null || params.length == 0 ? format : MessageFormat.format(format, params), null));
  }
}
