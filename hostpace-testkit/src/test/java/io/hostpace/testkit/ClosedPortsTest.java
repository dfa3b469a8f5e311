package io.hostpace.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * A port that nobody listens on stays so while the tests of the JVM run beside each other: a server
 * another test starts is not given it, and a connection to it is refused.
 */
class ClosedPortsTest {

  @Test
  void aClosedPortIsHeldSoThatNoServerStartedBesideIsGivenIt() throws Exception {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), ClosedPorts.next());

    try (ServerSocket server = new ServerSocket()) {
      server.setReuseAddress(true); // as the JDK's and the test servers' own sockets are
      assertThatThrownBy(() -> server.bind(address)).isInstanceOf(BindException.class);
    }
    try (Socket client = new Socket()) {
      assertThatThrownBy(() -> client.connect(address, 5_000)).isInstanceOf(ConnectException.class);
    }
  }
}
