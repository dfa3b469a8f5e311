package io.hostpace.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import picocli.CommandLine.ParameterException;

/**
 * The folder of {@code sparql --output-dir DIR}: each query's results go to a file of their own
 * there, written to a temporary file beside it ({@code .NAME.<digits>.hostpace-part}, as
 * {@code fetch --save} writes its bodies) and moved to their name when whole. A query that fails
 * part way leaves no file, and an earlier run's file of that name stands until one is whole.
 */
final class ResultsFolder {

  private final Path dir;
  private final SaveFolder files;

  private ResultsFolder(Path dir, SaveFolder files) {
    this.dir = dir;
    this.files = files;
  }

  /** The folder {@code dir}, given to {@code option}, made with its missing parents, if files can be made in it. */
  static ResultsFolder of(String option, Path dir, Function<String, ParameterException> usage) {
    // Checked and made as fetch --save does its own; its files written and placed as fetch's are.
    return new ResultsFolder(dir, SaveFolder.of(option, dir, usage));
  }

  /** What writes a file's content; what it returns is the caller's. */
  interface Content<T> {
    T writeTo(PrintStream out);
  }

  /**
   * Writes {@code name} with what {@code content} prints, and returns what it returned: to a
   * temporary file, moved to {@code name} when {@code content} has returned and the bytes are
   * written; when it throws, or the file cannot be written, the temporary file is deleted.
   *
   * @throws IOException when the file cannot be written, naming it
   */
  <T> T write(String name, Content<T> content) throws IOException {
    Path temporary = files.temporaryFor(name);
    boolean moved = false;
    try {
      T result;
      try (PrintStream out = new PrintStream(new BufferedOutputStream(Files.newOutputStream(temporary)), false,
          StandardCharsets.UTF_8)) {
        result = content.writeTo(out);
        out.flush();
        if (out.checkError()) {
          throw new IOException("'" + dir.resolve(name) + "' could not be written");
        }
      }
      files.place(temporary, name);
      moved = true;
      return result;
    } finally {
      if (!moved) {
        Files.deleteIfExists(temporary);
      }
    }
  }
}
