package io.hostpace.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Ports on 127.0.0.1 that refuse connections for the rest of the test's JVM. A port that was free a
 * moment ago may be another test's server's by the time a request goes to it, where test classes
 * run beside each other: each port here is held by a socket bound to it that does not listen, kept
 * open, so that no server is given it and a connection to it is refused.
 */
public final class ClosedPorts {

  /** The sockets that hold the ports given. */
  private static final List<Socket> HELD = new CopyOnWriteArrayList<>();

  private ClosedPorts() {}

  /** A port on 127.0.0.1 that nothing listens on, nor will while this JVM runs. */
  public static int next() throws IOException {
    Socket socket = new Socket();
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    HELD.add(socket);
    return socket.getLocalPort();
  }
}
