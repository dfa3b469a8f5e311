package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.redis.testing.RedisServer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testkit.BucketServer;
import io.hostpace.testkit.TestServer;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * SPEC S3 at a real server and a real Redis: workers that join a fleet after the first one
 * learned a host read what the fleet keeps of it, and cause no opening burst, counted at the
 * server. The run of late joiners measured from outside (a host of one a second, workers 30 s
 * apart) scaled to a host of five a second and workers 3 s apart, so that it takes seconds of the
 * wall clock, not minutes. A limiter of exactly five a second refuses two starts that a busy
 * machine brings closer than 200 ms, so the count is a figure of the wall clock: tagged
 * {@code wall-clock}, run by {@code -Pthorough}. {@code FleetMemoryTest} holds late joiners to it
 * in virtual time.
 */
class LateJoinersOverRedisTest {


  @Test
  @Tag("wall-clock")
  void S3_workersThatJoinAfterTheFirstLearnedTheHostAreRefusedAtMostOnceEachAtTheServer(TestReporter reporter) throws Exception {
    String fleetName = "late-" + Long.toHexString(System.nanoTime());
    BucketServer bucket = new BucketServer(5, 1, 429, RetryAfter.none()); // five a second, no burst, bare 429
    List<RedisFleet> fleets = new ArrayList<>();
    try (RedisServer redis = RedisServer.start(); TestServer server = TestServer.start(bucket)) {
      HttpClient client = HttpGet.client();
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        if (w > 0) {
          Thread.sleep(3000); // the first has learned the host meanwhile
        }
        RedisFleet fleet = RedisFleet.connect(redis.uri(), fleetName);
        fleets.add(fleet);
        Hostpace engine = Hostpace.builder().fleet(fleet).build();
        for (int i = 0; i < (w == 0 ? 30 : 10); i++) {
          calls.add(engine.execute(new HttpGet(client, server.uri("/w" + w + "/" + i))));
        }
      }
      for (CompletableFuture<HttpResponse<String>> call : calls) {
        assertThat(call.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }

      long[] refused = new long[4];
      for (BucketServer.Answer answer : bucket.answers()) {
        if (!answer.accepted()) {
          refused[answer.path().charAt(2) - '0']++;
        }
      }
      reporter.publishEntry("refusals by worker", refused[0] + ", " + refused[1] + ", " + refused[2] + ", " + refused[3]);
      for (int w = 1; w < 4; w++) {
        assertThat(refused[w]).as("worker %d, joining %d s after the first: refusals %s", w, 3 * w,
            java.util.Arrays.toString(refused)).isLessThanOrEqualTo(1);
      }
    } finally {
      fleets.forEach(RedisFleet::close);
    }
  }
}
