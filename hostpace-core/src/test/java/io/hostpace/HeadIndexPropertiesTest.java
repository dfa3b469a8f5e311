package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link HeadIndex}, a gate's index of the queues it holds back by their head's arrival (SPEC P7),
 * against the reference {@link TreeMap}: after every put and remove, the same answer to each
 * {@code higher} asked, and a walk from the least key that finds the same entries in the same
 * order, as a gate's walk does.
 *
 * <p>A try is a list of steps over keys drawn mostly from 0 to 3,000, so that puts meet keys
 * already there and removes find theirs, and sometimes from the ends of {@code long}: runs of up
 * to 200 ascending keys (which fill blocks and open new last ones), runs that fall between keys
 * already there (which split full blocks), removes of runs (which empty blocks and merge small
 * ones) and single puts and removes; then every key is removed in a random order, and a run put
 * again into the emptied index. The tries come from the build.
 */
class HeadIndexPropertiesTest {

  enum Kind { PUT, REMOVE }

  /** {@code count} keys from {@code from} by {@code step}, put or removed. */
  record Step(Kind kind, long from, int count, int step) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Long> key = Arbitraries.frequencyOf(
        Tuple.of(30, Arbitraries.longs().between(0, 3_000)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, Long.MAX_VALUE - 1, Long.MAX_VALUE)));
    Arbitrary<Integer> count = Arbitraries.frequencyOf(
        Tuple.of(2, Arbitraries.just(1)), Tuple.of(3, Arbitraries.integers().between(2, 200)));
    Arbitrary<Kind> kind = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(Kind.PUT)), Tuple.of(2, Arbitraries.just(Kind.REMOVE)));
    return Combinators.combine(kind, key, count, Arbitraries.integers().between(1, 4))
        .as(Step::new)
        .list().ofMinSize(1).ofMaxSize(40);
  }

  @Property
  void P7_theIndexAnswersAsATreeMapDoesAfterEveryPutAndRemove(@ForAll("steps") List<Step> steps, @ForAll long seed) {
    HeadIndex<Integer> index = new HeadIndex<>();
    TreeMap<Long, Integer> model = new TreeMap<>();
    int value = 0;
    int most = 0;
    for (Step step : steps) {
      for (int j = 0; j < step.count(); j++) {
        long key = step.from() + (long) j * step.step(); // past Long.MAX_VALUE wraps round: still keys
        if (step.kind() == Kind.PUT) {
          index.put(key, value);
          model.put(key, value);
          value++;
        } else {
          assertThat(index.remove(key)).as("remove(%d)", key).isEqualTo(model.remove(key) != null);
        }
        assertHigher(index, model, key - 1);
        assertHigher(index, model, key);
      }
      most = Math.max(most, model.size());
      assertSame(index, model);
    }
    List<Long> keys = new ArrayList<>(model.keySet());
    Collections.shuffle(keys, new Random(seed));
    for (int j = 0; j < keys.size(); j++) {
      long key = keys.get(j);
      assertThat(index.remove(key)).as("remove(%d)", key).isTrue();
      model.remove(key);
      assertHigher(index, model, key);
      if (j % 16 == 0) {
        assertSame(index, model);
      }
    }
    assertSame(index, model);
    for (long key = 100; key < 400; key += 3) {
      index.put(key, value);
      model.put(key, value);
    }
    assertSame(index, model);

    Statistics.label("most keys at once").collect(most <= HeadIndex.B ? "one block" : most <= 4 * HeadIndex.B ? "a few blocks" : "many blocks");
    Statistics.label("most keys at once").coverage(coverage -> {
      coverage.check("one block").percentage(p -> p > 5);
      coverage.check("many blocks").percentage(p -> p > 10);
    });
  }

  /** The example of {@link HeadIndex}'s class comment. */
  @Example
  void P7_aPutIntoAFullBlockSplitsItAndAHigherKeyIsFoundInTheNextBlock() {
    HeadIndex<String> index = new HeadIndex<>();
    for (long key = 1; key <= 127; key += 2) {
      index.put(key, "k" + key);
    }
    index.put(129, "k129");
    index.put(64, "k64");

    assertThat(index.size()).isEqualTo(66);
    assertThat(index.keyAt(index.higher(63))).isEqualTo(64);
    assertThat(index.valueAt(index.higher(64))).isEqualTo("k65");
    assertThat(index.keyAt(index.higher(127))).isEqualTo(129);
    assertThat(index.higher(129)).isEqualTo(-1);
  }

  private static void assertHigher(HeadIndex<Integer> index, TreeMap<Long, Integer> model, long key) {
    Map.Entry<Long, Integer> expected = model.higherEntry(key);
    int position = index.higher(key);
    if (expected == null) {
      assertThat(position).as("higher(%d)", key).isEqualTo(-1);
    } else {
      assertThat(position).as("higher(%d)", key).isNotNegative();
      assertThat(index.keyAt(position)).as("higher(%d)", key).isEqualTo(expected.getKey());
      assertThat(index.valueAt(position)).as("higher(%d)", key).isEqualTo(expected.getValue());
    }
  }

  /** The same size, and a walk from the least key, as a gate walks, finds the model's entries above it. */
  private static void assertSame(HeadIndex<Integer> index, TreeMap<Long, Integer> model) {
    assertThat(index.size()).isEqualTo(model.size());
    assertThat(index.isEmpty()).isEqualTo(model.isEmpty());
    List<Map.Entry<Long, Integer>> walked = new ArrayList<>();
    for (int p = index.higher(Long.MIN_VALUE); p >= 0; p = index.higher(index.keyAt(p))) {
      walked.add(Map.entry(index.keyAt(p), index.valueAt(p)));
    }
    assertThat(walked).containsExactlyElementsOf(model.tailMap(Long.MIN_VALUE, false).entrySet());
  }
}
