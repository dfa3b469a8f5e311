package io.hostpace.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.AfterEach;

/**
 * A {@link CommandTest} with a {@link LocalServer} of its own on 127.0.0.1 for each test method,
 * stopped after it (after the subclass's own {@code @AfterEach} methods, as JUnit orders them).
 */
abstract class ServedCommandTest extends CommandTest {

  final LocalServer server = started();

  @AfterEach
  final void closeServer() {
    server.close();
  }

  private static LocalServer started() {
    try {
      return new LocalServer();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the test's server on 127.0.0.1", e);
    }
  }
}
