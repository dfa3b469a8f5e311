package io.hostpace.proxy;

import io.hostpace.Hostpace;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * A proxy in a JVM of its own, for a test that holds its heap small: one route, {@code /up}, to the
 * upstream given as the only argument, on 127.0.0.1 and a port the system chooses, with the
 * builder's defaults otherwise (the request body's cap included). It prints the proxy's URI as its
 * one line, then runs until its standard input ends (the test closes it, or the test's JVM went),
 * and exits 0.
 */
final class ProxyProcess {

  private ProxyProcess() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("one argument, the upstream's base URL; got " + args.length);
    }
    try (Hostpace engine = Hostpace.builder().build();
        HostpaceProxy proxy = HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .route("/up", URI.create(args[0])).start()) {
      System.out.println(proxy.uri());
      System.out.flush();
      System.in.transferTo(OutputStream.nullOutputStream());
    }
  }
}
