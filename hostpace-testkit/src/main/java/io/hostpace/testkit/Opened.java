package io.hostpace.testkit;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test opened (servers, clients, event loops), closed together after it, in the order
 * they were opened. A test holds one as an extension, which closes it after each test:
 *
 * <pre>{@code
 * @RegisterExtension final Opened opened = new Opened();
 *
 * TestServer server = opened.add(TestServer.start(handler));
 * }</pre>
 *
 * <p>Or closes it itself, in its {@code @AfterEach} or a try-with-resources.
 */
public final class Opened implements AutoCloseable, AfterEachCallback {

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

  /** Closes everything added, after each test of a class that registered this as an extension. */
  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    close();
  }
}
