package io.hostpace.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test opened (servers, clients, event loops), closed together after it, in the order
 * they were opened, or the last opened first ({@link #lastFirst}). A test holds one as an
 * extension, which closes it after each test:
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

  private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();
  private final boolean lastFirst;

  /** What is added, closed first added first. */
  public Opened() {
    this(false);
  }

  private Opened(boolean lastFirst) {
    this.lastFirst = lastFirst;
  }

  /**
   * What is added, closed last added first, as try-with-resources closes: what was opened on top of
   * another (a proxy on an engine and its upstream) is closed before what it uses.
   */
  public static Opened lastFirst() {
    return new Opened(true);
  }

  /** {@code closeable}, to be closed with the others. */
  public <T extends AutoCloseable> T add(T closeable) {
    closing.add(closeable);
    return closeable;
  }

  /** Closes everything added, in its order; the first failure is thrown after all were tried. */
  @Override
  public void close() throws Exception {
    Exception first = null;
    for (int i = 0; i < closing.size(); i++) {
      AutoCloseable closeable = closing.get(lastFirst ? closing.size() - 1 - i : i);
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
