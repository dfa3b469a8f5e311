package io.hostpace.testkit;

import io.hostpace.AttemptListener;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * An attempt listener (SPEC A1) that writes down what it hears, a line each, in order:
 * {@code "sent 1"}, {@code "settled 1 429"} (the status, or the failure's simple class name, as in
 * {@code "settled 2 IOException"}), {@code "retrying 1"}.
 */
public final class HeardAttempts implements AttemptListener {

  private final List<String> heard = new CopyOnWriteArrayList<>();

  /** What was heard so far; a live view, safe to read while calls run. */
  public List<String> heard() {
    return heard;
  }

  @Override
  public void sent(URI uri, int attempt) {
    heard.add("sent " + attempt);
  }

  @Override
  public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
    heard.add("settled " + attempt + " " + (failure == null ? status : failure.getClass().getSimpleName()));
  }

  @Override
  public void retrying(URI uri, int attempt) {
    heard.add("retrying " + attempt);
  }
}
