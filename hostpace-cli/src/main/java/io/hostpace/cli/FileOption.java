package io.hostpace.cli;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * A file an option names, checked before anything is sent, so that a run does not fetch for an
 * hour and then find it cannot write what it fetched. Each problem is a usage error that names
 * the option and the file as given: {@code --chart 'out/q.png': the folder 'out' does not exist}.
 */
final class FileOption {

  private FileOption() {}

  /** The file {@code value} names, for picocli's options of type {@link Path}. */
  static Path convert(String value) {
    try {
      return Path.of(value);
    } catch (InvalidPathException e) {
      throw new TypeConversionException("'" + value + "' is not a file name: " + e.getReason());
    }
  }

  /** The file {@code value}, given to {@code option}, names. */
  static Path path(String option, String value, Function<String, ParameterException> usage) {
    try {
      return Path.of(value);
    } catch (InvalidPathException e) {
      throw usage.apply(option + " '" + value + "' is not a file name: " + e.getReason());
    }
  }

  /** {@code file}, given to {@code option}, if it is a file that can be read. */
  static Path readable(String option, Path file, Function<String, ParameterException> usage) {
    String named = named(option, file, usage);
    if (!Files.exists(file)) {
      throw usage.apply(named + " does not exist");
    }
    if (Files.isDirectory(file)) {
      throw usage.apply(named + " is a folder, not a file");
    }
    if (!Files.isReadable(file)) {
      throw usage.apply(named + " cannot be read: permission denied");
    }
    return file;
  }

  /**
   * {@code file}, given to {@code option}, if it can be written: a file that exists and may be
   * written, or one that does not exist yet in a folder that does and may be written to.
   */
  static Path writable(String option, Path file, Function<String, ParameterException> usage) {
    return writable(option, file, false, false, usage);
  }

  /**
   * {@code file}, given to {@code option}, if it can be written by a writer that makes its
   * missing folders and replaces the file by one it writes beside it ({@code HostStateFile}
   * does): a file is made and deleted in its folder (the folder of the file a link leads to), or
   * in the nearest folder that exists, to find out, since permission bits alone do not say (a
   * read-only mount, an ACL, root).
   */
  static Path writableMakingFolders(String option, Path file, Function<String, ParameterException> usage) {
    return writable(option, file, true, true, usage);
  }

  /**
   * {@code file}, given to {@code option}, once its missing folders are made, for a writer that
   * writes it in place ({@code fetch --output}): checked as {@link #writableMakingFolders} checks,
   * then the folders are made now, so that what cannot be made is a usage error before anything
   * is sent.
   */
  static Path writableWithFoldersMade(String option, Path file, Function<String, ParameterException> usage) {
    writable(option, file, true, false, usage);
    Path folder = file.toAbsolutePath().getParent();
    try {
      if (folder != null) {
        Files.createDirectories(folder);
      }
    } catch (IOException e) {
      throw usage.apply(named(option, file, usage) + " cannot be created: its folder '" + shownFolder(file.getParent())
          + "' cannot be made: " + Main.failure(e));
    }
    return file;
  }

  /**
   * Checks {@code file} for a writer that, if {@code makesFolders}, makes the file's missing
   * folders, and if {@code replaces}, writes a new file beside it. A folder a message names is as
   * the user wrote it (relative stays relative), but the folder a link leads to.
   */
  private static Path writable(String option, Path file, boolean makesFolders, boolean replaces,
      Function<String, ParameterException> usage) {
    String named = named(option, file, usage);
    if (Files.isDirectory(file)) {
      throw usage.apply(named + " is a folder, not a file");
    }
    if (Files.exists(file)) {
      if (!Files.isWritable(file)) {
        throw usage.apply(named + " cannot be written: permission denied");
      }
      if (replaces) {
        Path folder;
        try {
          folder = Files.isSymbolicLink(file) ? file.toRealPath().getParent() : shownFolder(file.getParent());
        } catch (IOException e) {
          throw usage.apply(named + " cannot be written: " + e.getMessage());
        }
        if (folder != null) {
          probe(named + " cannot be saved: a new file cannot be made in its folder '" + folder + "'", folder, usage);
        }
      }
      return file;
    }
    // The folder the file goes in, or the nearest that exists when the writer makes the others.
    Path folder = shownFolder(file.getParent());
    while (makesFolders && !Files.exists(folder) && !folder.equals(shownFolder(null))) {
      Path up = folder.getParent();
      if (up == null && folder.isAbsolute()) {
        break;
      }
      folder = shownFolder(up);
    }
    if (!Files.exists(folder)) {
      throw usage.apply(named + ": the folder '" + folder + "' does not exist");
    }
    if (!Files.isDirectory(folder)) {
      throw usage.apply(named + ": '" + folder + "' is not a folder");
    }
    if (!Files.isWritable(folder)) {
      throw usage.apply(named + " cannot be created: the folder '" + folder + "' is not writable");
    }
    if (replaces) {
      probe(named + " cannot be created: the folder '" + folder + "' is not writable", folder, usage);
    }
    return file;
  }

  /** The folder {@code parent} names as written, the working folder ({@code .}) for a file named alone. */
  private static Path shownFolder(@Nullable Path parent) {
    return parent != null ? parent : Path.of(".");
  }

  /**
   * Makes and deletes a file in {@code folder}, or throws the usage error {@code cannot}, with
   * why.
   */
  private static void probe(String cannot, Path folder, Function<String, ParameterException> usage) {
    try {
      Files.delete(Files.createTempFile(folder, ".hostpace-probe", ".tmp"));
    } catch (IOException e) {
      throw usage.apply(cannot + ": " + (e instanceof java.nio.file.AccessDeniedException
          ? "permission denied" : e.getMessage()));
    }
  }

  /** The text of {@code file}, given to {@code option}, which must be UTF-8. */
  static String text(String option, Path file, Function<String, ParameterException> usage) {
    readable(option, file, usage);
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (CharacterCodingException e) {
      throw usage.apply(option + " '" + file + "' is not UTF-8 text");
    } catch (IOException e) {
      throw usage.apply(option + " '" + file + "' cannot be read: " + e.getMessage());
    }
  }

  /** The bytes of {@code file}, given to {@code option}. */
  static byte[] bytes(String option, Path file, Function<String, ParameterException> usage) {
    readable(option, file, usage);
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw usage.apply(option + " '" + file + "' cannot be read: " + e.getMessage());
    }
  }

  private static String named(String option, Path file, Function<String, ParameterException> usage) {
    if (file.toString().isEmpty()) {
      throw usage.apply(option + " is empty: expected a file");
    }
    return option + " '" + file + "'";
  }
}
