package io.hostpace;

import java.io.IOException;
import java.net.URI;

/**
 * A call the engine ended because it was closed ({@link Hostpace#close}): made after the close, or
 * waiting when it came. An {@link IOException}, so that a blocking client's callers, who handle
 * I/O failures already, handle this one too. The message names the scheme, host and port, never
 * the path or query (which may carry keys) nor user info.
 */
public final class HostpaceClosedException extends IOException {

  private static final long serialVersionUID = 1L;

  /** For the call to {@code uri}. */
  public HostpaceClosedException(URI uri) {
    super("the Hostpace engine was closed: the call to " + origin(uri) + " was ended before its next attempt");
  }

  private static String origin(URI uri) {
    String host = uri.getHost();
    if (host == null) {
      return "a URI without a host";
    }
    return uri.getScheme() + "://" + host + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
  }
}
