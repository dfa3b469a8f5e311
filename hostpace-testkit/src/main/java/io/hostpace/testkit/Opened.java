package io.hostpace.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test opened (servers, clients, event loops), closed together after it, in the order
 * they were opened. A test holds one and closes it in its {@code @AfterEach}:
 *
 * <pre>{@code
 * final Opened opened = new Opened();
 *
 * @AfterEach
 * void close() throws Exception {
 *   opened.close();
 * }
 *
 * TestServer server = opened.add(TestServer.start(handler));
 * }</pre>
 */
public final class Opened implements AutoCloseable {

  private final List<AutoCloseable> closing = new ArrayList<>();

  /** {@code closeable}, to be closed with the others. */
  public <T extends AutoCloseable> T add(T closeable) {
    closing.add(closeable);
    return closeable;
  }

  /** Closes everything added, first added first; the first failure is thrown after all were tried. */
  @Override
  public void close() throws Exception {
    Exception first = null;
    for (AutoCloseable closeable : closing) {
      try {
        closeable.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    closing.clear();
    if (first != null) {
      throw first;
    }
  }
}
