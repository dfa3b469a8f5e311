package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.RandomWorkload.Run;
import io.hostpace.RandomWorkload.Workload;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * SPEC P14: the local path decides as the engine's lock does: a random workload ({@link RandomWorkload})
 * run on an engine that may take it and on one a store of its own keeps off it, in the same virtual
 * time, gives the same trace, line for line: every submission, send, answer, retry, cancellation
 * and completion at the same instant, in the same order, with the same outcome; and their
 * listeners hear the same events in the same order.
 */
class LocalPathPropertiesTest {

  @Provide
  Arbitrary<Workload> workloads() {
    return RandomWorkload.workloads();
  }

  @Property
  void theLocalPathDecidesAsTheLockDoes(@ForAll("workloads") Workload workload) {
    Run local = Run.plain(workload, false);
    Run locked = Run.plain(workload, true);
    assertThat(String.join("\n", local.heard)).as(locked::trace).isEqualTo(String.join("\n", locked.heard));
    Statistics.label("calls started on the local path").collect(local.engine.localStarts() > 0 ? "some" : "none");
    Statistics.label("calls started on the local path").coverage(coverage -> coverage.check("some").percentage(p -> p > 20));
    assertThat(locked.engine.localStarts()).as("local starts of an engine with a store of its own").isZero();
    assertThat(String.join("\n", local.trace)).as(locked::trace).isEqualTo(String.join("\n", locked.trace));
  }
}
