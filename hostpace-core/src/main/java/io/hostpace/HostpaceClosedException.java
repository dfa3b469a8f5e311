package io.hostpace;

import io.hostpace.internal.Redaction;
import java.io.IOException;
import java.net.URI;

/**
 * A call the engine ended because it was closed ({@link Hostpace#close}): made after the close, or
 * waiting when it came. An {@link IOException}, so that a blocking client's callers, who handle
 * I/O failures already, handle this one too. The message names the scheme, host and port, never
 * the path or query (which may carry keys) nor user info, and says whether the call was ever sent.
 */
public final class HostpaceClosedException extends IOException {

  private static final long serialVersionUID = 1L;

  /** For the call to {@code uri}, ended before it was sent. */
  public HostpaceClosedException(URI uri) {
    this(uri, false);
  }

  /** For the call to {@code uri}, ended before it was sent or, when {@code sent}, before its next attempt. */
  HostpaceClosedException(URI uri, boolean sent) {
    super("the Hostpace engine was closed: the call to " + origin(uri) + " was ended before "
        + (sent ? "its next attempt" : "it was sent"));
  }

  /**
   * {@code https://example.org:8443}; the authority without user info where the JDK reads no host
   * in it ({@code http://a_b.test}), on one line.
   */
  private static String origin(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme() + ":";
    String host = uri.getHost();
    if (host != null) {
      return scheme + "//" + host + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
    }
    String authority = uri.getRawAuthority();
    if (authority == null) {
      return "a URI without a host";
    }
    return Redaction.printable(scheme + "//" + authority.substring(authority.lastIndexOf('@') + 1));
  }
}
