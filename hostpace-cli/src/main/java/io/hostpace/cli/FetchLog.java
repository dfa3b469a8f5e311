package io.hostpace.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ParameterException;

/**
 * The records an earlier run of {@code fetch} wrote to {@code --output}, read for
 * {@code --resume}: which URLs are done, and where the file's whole lines end.
 *
 * <p>A URL is done when a record of it has a 2xx status and no error (its body came whole) and,
 * with {@code --save}, names a file that the folder holds with the record's byte count. A URL is
 * matched as records show it, its user info as {@code ***}. A last line that does not end with
 * a newline is what a run killed as it wrote left: when it is a whole record it counts and a
 * newline is added after it, else it is cut off, so the next record starts on a line of its own.
 * Any other line that is not a record (but a blank one) means the file is not a file of records,
 * which is a usage error: it is not appended to.
 *
 * <p>For example, a file of {@code {"url":"http://a.test/1","status":200,...}\n} and
 * {@code {"url":"http://a.test/2","sta} (cut) holds one URL done, and is cut back to its first
 * line before the resumed run appends its records.
 */
final class FetchLog {

  /** What a record says of its URL, as far as resuming asks. */
  private record Entry(String url, int status, long bytes, @Nullable String file, boolean error) {}

  private final Map<String, List<Entry>> byUrl;
  /** The bytes of the file up to the end of its last whole line. */
  private final long whole;
  /** Whether a whole record follows them without its newline. */
  private final boolean newlineMissing;

  private FetchLog(Map<String, List<Entry>> byUrl, long whole, boolean newlineMissing) {
    this.byUrl = byUrl;
    this.whole = whole;
    this.newlineMissing = newlineMissing;
  }

  /**
   * The records of {@code file}, none when it does not exist; a usage error that names
   * {@code --resume} and {@code --output} when it holds a line that is not a record.
   */
  static FetchLog read(Path file, Function<String, ParameterException> usage) {
    if (!Files.exists(file)) {
      return new FetchLog(Map.of(), 0, false);
    }
    Map<String, List<Entry>> byUrl = new HashMap<>();
    long offset = 0; // where the line being read starts
    int line = 0;
    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file))) {
      while (true) {
        int b = in.read();
        if (b != '\n' && b >= 0) {
          text.write(b);
          continue;
        }
        if (b < 0 && text.size() == 0) {
          return new FetchLog(byUrl, offset, false);
        }
        line++;
        String decoded = decode(text.toByteArray());
        Map<String, String> fields = decoded == null ? null : Json.object(decoded);
        Entry entry = fields == null ? null : entry(fields);
        if (entry != null) {
          byUrl.computeIfAbsent(entry.url(), url -> new ArrayList<>()).add(entry);
        }
        if (b < 0) {
          // A line without its newline: a run was killed as it wrote it. A whole record counts.
          return entry != null ? new FetchLog(byUrl, offset + text.size(), true) : new FetchLog(byUrl, offset, false);
        }
        if (entry == null && (decoded == null || !decoded.isBlank())) {
          throw usage.apply("--resume: --output '" + file + "' is not a file of fetch records: line " + line
              + " is not one, so it is not appended to");
        }
        offset += text.size() + 1;
        text.reset();
      }
    } catch (IOException e) {
      throw usage.apply("--resume: --output '" + file + "' cannot be read: " + Main.failure(e));
    }
  }

  /** Whether {@code url}, as a record shows it, is done: fetched whole with a 2xx status (and saved in {@code folder}). */
  boolean done(String url, @Nullable SaveFolder folder) {
    for (Entry entry : byUrl.getOrDefault(url, List.of())) {
      if (entry.status() / 100 == 2 && !entry.error()
          && (folder == null || entry.file() != null && folder.holds(entry.file(), entry.bytes()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code file} opened to append records to, its last line repaired first: a line cut short is
   * cut off, a whole one without its newline gets it.
   */
  OutputStream append(Path file) throws IOException {
    if (Files.exists(file)) {
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(whole);
        if (newlineMissing) {
          channel.write(ByteBuffer.wrap(new byte[] {'\n'}), whole);
        }
      }
    }
    return Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  private static @Nullable Entry entry(Map<String, String> fields) {
    String url = fields.get("url");
    String bytes = fields.getOrDefault("bytes", "0");
    if (url == null || !bytes.matches("[0-9]{1,18}")) {
      return null;
    }
    String status = fields.getOrDefault("status", "-1");
    int code = status.matches("[0-9]{3}") ? Integer.parseInt(status) : FetchRecord.NO_ANSWER;
    return new Entry(url, code, Long.parseLong(bytes), fields.get("file"), fields.containsKey("error"));
  }

  /** The UTF-8 text of {@code bytes}, null when it is not UTF-8 (a character cut in two). */
  private static @Nullable String decode(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
