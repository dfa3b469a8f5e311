package io.hostpace.redis;

import io.hostpace.Hostpace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One worker in a JVM of its own, for {@link AnnouncedQuotaWorkersTest}: an engine, with a
 * {@link RedisFleet} on the Redis given or alone ({@code alone} for the URI), sends {@code count}
 * GETs to {@code base/name/0} ... at once, as {@code hostpace fetch} does with a list of URLs, and
 * ends when all are answered. It ends too when its standard input closes (the test's JVM went
 * away), or after two minutes, so that no worker outlives its test.
 *
 * <p>Arguments: redisUri|alone fleetName base name count.
 */
final class QuotaWorker {

  private QuotaWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      throw new IllegalArgumentException("expected redisUri|alone fleetName base name count, got " + args.length
          + " arguments");
    }
    FleetWorker.haltWhenInputEnds();

    RedisFleet fleet = args[0].equals("alone") ? null : RedisFleet.connect(args[0], args[1]);
    Hostpace.Builder builder = Hostpace.builder();
    if (fleet != null) {
      builder.fleet(fleet);
    }
    Hostpace engine = builder.build();
    HttpClient client = HttpGet.client();
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < Integer.parseInt(args[4]); i++) {
      calls.add(engine.execute(new HttpGet(client, URI.create(args[2] + "/" + args[3] + "/" + i))));
    }
    int ok = 0;
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      try {
        ok += call.get(2, TimeUnit.MINUTES).statusCode() == 200 ? 1 : 0;
      } catch (Exception e) {
        System.out.println(args[3] + ": " + e);
      }
    }
    System.out.println(args[3] + " done: " + ok + " of " + calls.size() + " answered 200");
    Runtime.getRuntime().halt(ok == calls.size() ? 0 : 1);
  }
}
