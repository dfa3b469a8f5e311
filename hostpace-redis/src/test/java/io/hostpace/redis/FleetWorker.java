package io.hostpace.redis;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker of a fleet in a JVM of its own, for the tests of a fleet's failures (SPEC S4): an
 * engine with a {@link RedisFleet} on the Redis given, an in-flight limit given the host by key,
 * and the fleet's place lease given; {@code callers} threads send GETs to the host one after the
 * other, to {@code base/name/n}, until the JVM ends. It ends when the test kills it, when its
 * standard input closes (the test's JVM went away), or after {@code lifeSeconds}, so that no
 * worker outlives its test.
 *
 * <p>Arguments: redisUri fleetName base hostKey inFlight leaseMillis callers name lifeSeconds.
 */
final class FleetWorker {

  private FleetWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      throw new IllegalArgumentException("expected redisUri fleetName base hostKey inFlight leaseMillis callers name"
          + " lifeSeconds, got " + args.length + " arguments");
    }
    String redisUri = args[0];
    String fleetName = args[1];
    String base = args[2];
    String hostKey = args[3];
    int inFlight = Integer.parseInt(args[4]);
    Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
    int callers = Integer.parseInt(args[6]);
    String name = args[7];
    long lifeSeconds = Long.parseLong(args[8]);

    haltWhenInputEnds();

    RedisFleet fleet = RedisFleet.connect(redisUri, fleetName).placeLease(lease);
    Hostpace engine = Hostpace.builder().fleet(fleet).addLimit(hostKey, Limits.inFlight(inFlight)).build();
    HttpClient client = HttpGet.client();
    AtomicLong sent = new AtomicLong();
    for (int i = 0; i < callers; i++) {
      Thread caller = new Thread(() -> {
        while (true) {
          try {
            engine.send(new HttpGet(client, URI.create(base + "/" + name + "/" + sent.incrementAndGet())));
          } catch (Exception e) {
            System.out.println(name + ": " + e);
          }
        }
      }, name + "-caller-" + i);
      caller.setDaemon(true);
      caller.start();
    }
    System.out.println(name + " ready: " + fleet); // names the process, as its places in Redis do
    long end = System.nanoTime() + Duration.ofSeconds(lifeSeconds).toNanos();
    while (System.nanoTime() - end < 0) { // what the test prints of a worker when it fails
      Thread.sleep(1000);
      System.out.println(name + ": " + sent.get() + " sent, " + fleet.claimsUnclaimed() + " claims unclaimed, "
          + fleet.releasesLost() + " releases lost");
    }
    Runtime.getRuntime().halt(0);
  }

  /**
   * Ends this JVM (status 3) when its standard input ends: the test that started it never writes
   * there, so the end means the test's JVM went away, and no worker outlives it.
   */
  static void haltWhenInputEnds() {
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) { // the test never writes: this waits for the end of the input
        }
      } catch (java.io.IOException e) { // the pipe broke: the test is gone as well
      }
      Runtime.getRuntime().halt(3);
    }, "worker-stdin");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
