package io.hostpace.cli;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ParameterException;

/**
 * The folder of {@code fetch --save DIR}: each answer's body is streamed into a file of its own
 * there, a buffer at a time as the client reads it, never held whole. A body is written to a
 * temporary file beside its own ({@code .NAME.<digits>.hostpace-part}) and moved to its name
 * ({@link SavedName}) when its last byte has come, so a file under a name is a whole body. A
 * body that does not end whole (cut at {@code --timeout} or {@code --max-body}, failed, or
 * cancelled by Ctrl-C) leaves no file: its temporary file is deleted as it ends, or at the end
 * of the run. A run killed outright leaves its temporary files, which {@link #deleteLeftovers}
 * removes when the next run resumes.
 */
final class SaveFolder implements AutoCloseable {

  /** How the temporary files of bodies being written end. */
  static final String PART = ".hostpace-part";

  private final Path dir;
  /** The bodies being written, which {@link #close} abandons. */
  private final Set<BodyFile> writing = ConcurrentHashMap.newKeySet();

  private SaveFolder(Path dir) {
    this.dir = dir;
  }

  /**
   * The folder {@code dir}, given to {@code option}, made with its missing parents, if files can
   * be made in it; else a usage error that names the option and the folder.
   */
  static SaveFolder of(String option, Path dir, Function<String, ParameterException> usage) {
    String named = option + " '" + dir + "'";
    if (dir.toString().isEmpty()) {
      throw usage.apply(option + " is empty: expected a folder");
    }
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw usage.apply(named + " is a file, not a folder");
    }
    try {
      Files.createDirectories(dir);
      Files.delete(Files.createTempFile(dir, ".hostpace-probe", PART));
    } catch (IOException e) {
      throw usage.apply(named + " cannot be written to: " + Main.failure(e));
    }
    return new SaveFolder(dir);
  }

  /** A body handler that saves the body as {@code name}, its body the count of bytes saved. */
  BodyHandler<Long> handler(String name) {
    return info -> new BodyFile(name);
  }

  /** Whether {@code name} is a file of exactly {@code bytes} bytes here: a body a run saved whole. */
  boolean holds(String name, long bytes) {
    Path file = dir.resolve(name);
    try {
      return dir.equals(file.getParent()) && Files.isRegularFile(file) && Files.size(file) == bytes;
    } catch (IOException | java.nio.file.InvalidPathException e) {
      return false;
    }
  }

  /** Deletes the temporary files a run left when it was killed mid-body; returns how many. */
  int deleteLeftovers() throws IOException {
    int deleted = 0;
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.startsWith(".") && name.endsWith(PART) && Files.isRegularFile(file)) {
          Files.deleteIfExists(file);
          deleted++;
        }
      }
    }
    return deleted;
  }

  /** Abandons the bodies still being written (cancelled calls): their temporary files are deleted. */
  @Override
  public void close() {
    writing.forEach(BodyFile::abandon);
  }

  /**
   * A new temporary file for {@code name} in the folder: hidden, its name ending {@link #PART},
   * so that a later run knows it for a leftover.
   */
  Path temporaryFor(String name) throws IOException {
    return Files.createTempFile(dir, "." + name + ".", PART);
  }

  /** Moves a complete temporary file to {@code name} in one step, so that a file under a name is whole. */
  void place(Path temporary, String name) throws IOException {
    Files.move(temporary, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * One body, written to its temporary file as it comes and moved to its name when complete.
   * Invariant: once {@code ended} is set, the channel is closed and the temporary file is gone
   * (moved to the name or deleted), and no later signal writes; the JDK's signals come one at a
   * time, and {@link #abandon} at the run's end may race them, so both hold the lock.
   */
  private final class BodyFile implements BodySubscriber<Long> {
    private final String name;
    private final CompletableFuture<Long> saved = new CompletableFuture<>();
    @GuardedBy("this")
    private @Nullable Path temporary;
    @GuardedBy("this")
    private @Nullable FileChannel channel;
    @GuardedBy("this")
    private Flow.@Nullable Subscription subscription;
    @GuardedBy("this")
    private long bytes;
    @GuardedBy("this")
    private boolean ended;

    BodyFile(String name) {
      this.name = name;
    }

    @Override
    public CompletionStage<Long> getBody() {
      return saved;
    }

    @Override
    public synchronized void onSubscribe(Flow.Subscription given) {
      subscription = given;
      writing.add(this);
      try {
        Path file = temporaryFor(name);
        temporary = file;
        channel = FileChannel.open(file, StandardOpenOption.WRITE);
      } catch (IOException e) {
        fail(e);
        given.cancel();
        return;
      }
      given.request(1);
    }

    @Override
    public synchronized void onNext(List<ByteBuffer> buffers) {
      FileChannel open = channel;
      Flow.Subscription current = subscription;
      if (ended || open == null || current == null) {
        return;
      }
      try {
        for (ByteBuffer buffer : buffers) {
          while (buffer.hasRemaining()) {
            bytes += open.write(buffer);
          }
        }
      } catch (IOException e) {
        fail(e);
        current.cancel();
        return;
      }
      current.request(1);
    }

    @Override
    public synchronized void onError(Throwable failure) {
      if (!ended) {
        fail(failure);
      }
    }

    @Override
    public synchronized void onComplete() {
      if (ended) {
        return;
      }
      Path file = temporary;
      FileChannel open = channel;
      try {
        if (open != null) {
          open.close();
        }
        if (file != null) {
          place(file, name);
        }
      } catch (IOException e) {
        fail(new IOException("the body could not be saved as '" + name + "' in '" + dir + "': " + Main.failure(e), e));
        return;
      }
      ended = true;
      writing.remove(this);
      saved.complete(bytes);
    }

    /** The run ended with the body not done: it is not kept. */
    synchronized void abandon() {
      if (!ended) {
        fail(new IOException("the run ended before the body was saved"));
      }
    }

    /** Ends the body as failed: the channel closed, the temporary file deleted. */
    @GuardedBy("this")
    private void fail(Throwable failure) {
      ended = true;
      writing.remove(this);
      try {
        FileChannel open = channel;
        if (open != null) {
          open.close();
        }
        Path file = temporary;
        if (file != null) {
          Files.deleteIfExists(file);
        }
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
      saved.completeExceptionally(failure);
    }
  }
}
