package io.hostpace.cli;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.PrintStream;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * Where the lines Hostpace logs go while a command runs: the JDK's default {@code System.Logger}
 * is {@code java.util.logging}, so this puts one handler on its logger {@code io.hostpace} that
 * writes each line to the run's stderr, one line each, {@code 14:03:07.215 WARN message}, the
 * level in {@code System.Logger}'s words. {@code WARNING} lines always; {@code DEBUG} (the
 * engine's decisions) too once {@link #verbose()} is called, for {@code --verbose}. Lines of other
 * libraries (Lettuce, Jena) go where they went before. {@link #close()} puts the logger back as it
 * was, so a command run in a test's process leaves nothing behind.
 *
 * <p>Runs in one JVM at once (embedding, tests) share the logger: the first to open keeps how it
 * was and the last to close puts it back, and it stays at {@code DEBUG} while any run is verbose;
 * each run's handler takes {@code DEBUG} lines only when that run is verbose. The command line's
 * own process leaves out Lettuce's and Netty's warnings ({@link #quietLibraries()}), which it
 * says in its own words, but with {@code --verbose}.
 */
final class LogSetup implements AutoCloseable {

  /** The logger of every Hostpace class; held here, as {@code java.util.logging} holds its loggers weakly. */
  private static final Logger HOSTPACE = Logger.getLogger("io.hostpace");

  /** Guards the counts below and the logger's level and parent handlers. */
  private static final Object LOCK = new Object();
  @GuardedBy("LOCK")
  private static int open;
  @GuardedBy("LOCK")
  private static int verboseOpen;
  @GuardedBy("LOCK")
  private static @Nullable Level levelBefore;
  @GuardedBy("LOCK")
  private static boolean parentBefore;
  /** The setup of the run on this thread, which {@link #verbose()} makes verbose. */
  private static final ThreadLocal<@Nullable LogSetup> CURRENT = new ThreadLocal<>();

  private final Handler handler;
  @GuardedBy("LOCK")
  private boolean verbose;

  private LogSetup(PrintStream err) {
    this.handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (isLoggable(record)) {
          err.println(getFormatter().format(record));
        }
      }

      @Override
      public void flush() {
        err.flush();
      }

      @Override
      public void close() {}
    };
    handler.setFormatter(new Compact(ZoneId.systemDefault()));
    handler.setLevel(Level.WARNING);
    synchronized (LOCK) {
      if (open++ == 0) {
        levelBefore = HOSTPACE.getLevel();
        parentBefore = HOSTPACE.getUseParentHandlers();
        HOSTPACE.setUseParentHandlers(false); // else the root's handler prints each line again, on two lines
        HOSTPACE.setLevel(Level.WARNING);
      }
      HOSTPACE.addHandler(handler);
    }
    CURRENT.set(this);
  }

  /**
   * The libraries whose warnings the command line says in its own words: Lettuce and Netty
   * print two lines for each Redis node they cannot reach, where {@code --fleet} prints one line
   * for them all. Held here, as {@code java.util.logging} holds its loggers weakly.
   */
  private static final Logger[] LIBRARIES = {Logger.getLogger("io.lettuce"), Logger.getLogger("io.netty")};

  /**
   * For the command line's own process: the libraries' warnings are left out, their errors
   * kept, until a run is {@link #verbose()}. Not for a run embedded in another program, whose
   * logging is its own.
   */
  static void quietLibraries() {
    for (Logger library : LIBRARIES) {
      library.setLevel(Level.SEVERE);
    }
  }

  /** Sends Hostpace's {@code WARNING} lines to {@code err} until closed. */
  static LogSetup toStderr(PrintStream err) {
    return new LogSetup(err);
  }

  /**
   * {@code --verbose}: the engine's decisions, at {@code DEBUG}, go to the stderr of the run on
   * this thread too, until its setup is closed.
   */
  static void verbose() {
    LogSetup current = CURRENT.get();
    if (current == null) {
      return; // no run on this thread: nowhere to print
    }
    synchronized (LOCK) {
      for (Logger library : LIBRARIES) {
        if (Level.SEVERE.equals(library.getLevel())) {
          library.setLevel(null); // quieted for the process: --verbose shows what they say
        }
      }
      if (!current.verbose) {
        current.verbose = true;
        verboseOpen++;
        current.handler.setLevel(Level.ALL);
        HOSTPACE.setLevel(Level.FINE);
      }
    }
  }

  @Override
  public void close() {
    CURRENT.remove();
    synchronized (LOCK) {
      HOSTPACE.removeHandler(handler);
      if (verbose) {
        verbose = false;
        if (--verboseOpen == 0) {
          HOSTPACE.setLevel(Level.WARNING);
        }
      }
      if (--open == 0) {
        HOSTPACE.setUseParentHandlers(parentBefore);
        HOSTPACE.setLevel(levelBefore);
      }
    }
  }

  /** One line a record: the local time to the millisecond, the level as {@code System.Logger} names it, the message, and the exception's. */
  static final class Compact extends Formatter {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    private final ZoneId zone;

    Compact(ZoneId zone) {
      this.zone = zone;
    }

    @Override
    public String format(LogRecord record) {
      String time = TIME.format(LocalTime.ofInstant(Instant.ofEpochMilli(record.getMillis()), zone));
      Throwable thrown = record.getThrown();
      String message = formatMessage(record) + (thrown == null ? "" : " (" + Main.failure(thrown) + ")");
      return time + " " + level(record.getLevel()) + " " + Printable.line(message);
    }

    /** {@code java.util.logging}'s level in the words of {@code System.Logger}, which Hostpace logs through. */
    static String level(Level level) {
      int value = level.intValue();
      return value >= Level.SEVERE.intValue() ? "ERROR"
          : value >= Level.WARNING.intValue() ? "WARN"
          : value >= Level.INFO.intValue() ? "INFO"
          : value >= Level.FINE.intValue() ? "DEBUG"
          : "TRACE";
    }
  }
}
