package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A gate's index (SPEC P7) against the reference it replaced, a {@link TreeMap} by key: after
 * every step of a run of puts, removes and walks, the index holds the same queues and a walk from
 * any key finds the same next one. Keys are drawn from a small range so that puts land before,
 * between and after the others, in holes and beside them, and that compaction and growth happen.
 * The tries come from the build.
 */
class GateIndexPropertiesTest {

  /** One step: put (a key not held), remove (held or not), or find the next above a key. */
  record Step(int kind, long key) {}

  @Property
  void P7_theIndexHoldsAndWalksAsASortedMapDoes(@ForAll("runs") List<Step> run) {
    GateIndex<String> index = new GateIndex<>();
    TreeMap<Long, String> reference = new TreeMap<>();
    for (Step step : run) {
      switch (step.kind()) {
        case 0 -> {
          if (!reference.containsKey(step.key())) {
            String queue = "q" + step.key();
            index.put(step.key(), queue);
            reference.put(step.key(), queue);
          }
        }
        case 1 -> {
          index.remove(step.key());
          reference.remove(step.key());
        }
        default -> {
          Map.Entry<Long, String> expected = reference.higherEntry(step.key());
          String found = index.higher(step.key());
          assertThat(found).as("after %s, above %d", step, step.key()).isEqualTo(expected == null ? null : expected.getValue());
          if (expected != null) {
            assertThat(index.foundKey()).isEqualTo(expected.getKey());
          }
        }
      }
      assertThat(index.size()).isEqualTo(reference.size());
      assertThat(index.isEmpty()).isEqualTo(reference.isEmpty());
    }
    // A walk over the whole index from the start gives every queue in key order.
    List<String> walked = new ArrayList<>();
    long at = Long.MIN_VALUE;
    for (String next = index.higher(at); next != null; next = index.higher(at)) {
      walked.add(next);
      at = index.foundKey();
    }
    assertThat(walked).containsExactlyElementsOf(reference.values());
  }

  @Provide
  Arbitrary<List<Step>> runs() {
    Arbitrary<Long> keys = Arbitraries.longs().between(0, 200);
    // Mostly puts of rising keys, as arrivals are, with removes and walks among them.
    Arbitrary<Step> step = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, keys.map(key -> new Step(0, key))),
        net.jqwik.api.Tuple.of(4, keys.map(key -> new Step(1, key))),
        net.jqwik.api.Tuple.of(3, keys.map(key -> new Step(2, key))));
    return step.list().ofMinSize(1).ofMaxSize(400);
  }
}
