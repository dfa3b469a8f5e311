package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code hostpace demo}, smaller than by default, in this process: plain Jena loses queries that
 * Hostpace completes, and a next run that starts from what the first was taught is refused less.
 * {@code hostpace demo --fleet}, as it ships: worker processes learning alone, then as a fleet.
 * The demo queries through Jena, so the class holds the lock of Jena's default client.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT)
class DemoCommandTest {

  @Test
  void plainJenaLosesQueriesThatHostpaceCompletesCorrectlyAndTheNextRunIsRefusedLess() {
    CommandRun demo = CommandRun.of("demo", "--queries", "6");
    String out = demo.out();

    assertThat(demo.status()).as(out + demo.err()).isZero();
    Matcher completed = Pattern.compile("queries completed\\s+(\\d+) / 6\\s+(\\d+) / 6\\s+(\\d+) / 6").matcher(out);
    assertThat(completed.find()).as(out).isTrue();
    assertThat(Integer.parseInt(completed.group(1))).isLessThan(6);
    assertThat(completed.group(2)).isEqualTo("6");
    assertThat(completed.group(3)).isEqualTo("6");
    assertThat(out).containsPattern("results correct\\s+\\d+ / 6\\s+6 / 6\\s+6 / 6");
    // The next run starts from what the first was taught: fewer refusals by people than the first.
    Matcher refused = Pattern.compile("refusals by people\\s+([1-9]\\d*)\\s+(\\d+)\\s+(\\d+)").matcher(out);
    assertThat(refused.find()).as(out).isTrue();
    assertThat(Integer.parseInt(refused.group(3))).as(out).isLessThan(Integer.parseInt(refused.group(2)));
  }

  /**
   * Three {@code hostpace fetch} processes, started by the demo from this JVM's classpath, against
   * one endpoint of a known rate, learning alone, then as a fleet: as a fleet every URL is
   * answered and every worker finishes, the figures the demo prints add up (each refusal the
   * endpoint counted is one of a worker's), and neither a worker nor the Redis the demo started is
   * left running. None of this depends on how fast the machine is.
   */
  @Test
  void S3_theFleetDemoAnswersEveryUrlAsAFleetItsFiguresAddUpAndNothingIsLeftRunning() {
    Set<Long> before = descendants();
    String out = fleetDemo();

    assertFleetDemoAddsUp(out);
    Set<Long> left = descendants();
    left.removeAll(before);
    assertThat(left).as("no worker and no Redis left running").isEmpty();
  }

  /**
   * The figures of the fleet demo, which are the wall clock's (how many refusals the workers'
   * timing costs them at a real endpoint): the late joiner of the fleet starts from what the fleet
   * learned (SPEC S3) and is refused less than when it learns alone, and the fleet less than the
   * workers alone. In virtual time the same is held by the simulator
   * (PacingSimulationTest.S3_eachProcessThatJoinsAFleetLateOpensWithNoRefusalWhereLearningAloneEachOpensAsOnFirstContact)
   * and the core (FleetMemoryTest.S3_workersThatJoinLateStartFromThePaceTheFleetLearnedWithNoOpeningBurst).
   */
  @Test
  @Tag("wall-clock")
  void S3_theFleetDemosLateJoinerIsRefusedLessThanLearningAlone() {
    String out = fleetDemo();

    assertFleetDemoAddsUp(out);
    List<int[]> workers = workers(out);
    int[] counted = row(out, "refusals the endpoint counted");
    assertThat(counted[1]).as("the fleet is refused less than the workers learning alone: " + out)
        .isLessThan(counted[0]);
    // The late joiner of the fleet opens with what the fleet learned: no opening burst, at most the
    // one refusal a probe of the fleet's rule may cost it, and fewer than when it learns alone.
    int[] late = workers.get(2);
    assertThat(late[1]).as("as a fleet the late joiner is refused at most once: " + out).isLessThanOrEqualTo(1);
    assertThat(late[1]).as("as a fleet the late joiner is refused less than alone: " + out).isLessThan(late[0]);
  }

  /** Runs {@code hostpace demo --fleet}; returns what it printed, once it exited 0. */
  private static String fleetDemo() {
    CommandRun demo = CommandRun.of("demo", "--fleet");
    String out = demo.out();
    assertThat(demo.status()).as(out + demo.err()).isZero();
    return out;
  }

  /** What the fleet demo's table says whatever the machine: every URL answered as a fleet, and the refusals add up. */
  private static void assertFleetDemoAddsUp(String out) {
    int total = 2 * FleetDemo.EARLY_URLS + FleetDemo.LATE_URLS;
    // Learning alone a worker may run out of retries; as a fleet none does.
    assertThat(out).as("every URL of the fleet answered")
        .containsPattern("URLs answered 200\\s+\\d+ / " + total + "\\s+" + total + " / " + total);
    List<int[]> workers = workers(out);
    int[] counted = row(out, "refusals the endpoint counted");
    // As a fleet every worker finishes, and each refusal the endpoint counted is one of theirs.
    assertThat(out).containsPattern("stopped at \\d+ s, still running\\s+.+\\s+none\\R");
    assertThat(workers.stream().mapToInt(worker -> worker[1]).sum()).as(out).isEqualTo(counted[1]);
    // Learning alone a worker may be stopped before its last answers: the endpoint counted at least theirs.
    assertThat(workers.stream().mapToInt(worker -> worker[0]).sum()).as(out).isLessThanOrEqualTo(counted[0]);
  }

  private static List<int[]> workers(String out) {
    return List.of(row(out, "refusals of worker 1"), row(out, "refusals of worker 2"), row(out, "refusals of the late joiner"));
  }

  @Test
  void theFleetDemoTakesNoQueriesAsItRunsNoFederatedWorkload() {
    CommandRun demo = CommandRun.of("demo", "--fleet", "--queries", "4");
    assertThat(demo.status()).isEqualTo(Main.USAGE);
    assertThat(demo.err()).contains("--queries").contains("--fleet");
  }

  /** The two figures of a row of the fleet demo's table: learning alone, as a fleet. */
  private static int[] row(String out, String label) {
    Matcher row = Pattern.compile(Pattern.quote(label) + "\\s+(\\d+)\\s+(\\d+)").matcher(out);
    assertThat(row.find()).as(label + " in " + out).isTrue();
    return new int[] {Integer.parseInt(row.group(1)), Integer.parseInt(row.group(2))};
  }

  /** The processes this JVM started that are still alive: workers, Redis, whatever else. */
  private static Set<Long> descendants() {
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
