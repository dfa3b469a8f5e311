package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.HostStateStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A host's queues by their limits (SPEC P10: the queues of one host share what it taught): found
 * by equal limits, in the order they came, and gone when removed, the others kept in order.
 */
class NodeQueuesTest {

  final Node node = new Node("h.test", false, HostStateStore.inMemory().open("h.test"));

  HostQueue queue(int inFlight) {
    return new HostQueue(node, new QueueKey(Limits.inFlight(inFlight), List.of(), 0), null, new GroupGate[0]);
  }

  static QueueKey key(int inFlight) {
    return new QueueKey(Limits.inFlight(inFlight), List.of(), 0);
  }

  List<HostQueue> all() {
    List<HostQueue> all = new ArrayList<>();
    for (int i = 0; i < node.queueCount(); i++) {
      all.add(node.queueAt(i));
    }
    return all;
  }

  @Test
  void P10_queuesAreFoundByEqualLimitsInTheOrderTheyCameAndRemovedOneByOne() {
    HostQueue one = queue(1);
    HostQueue two = queue(2);
    HostQueue three = queue(3);
    HostQueue four = queue(4);
    assertThat(node.queue(key(1))).isNull();
    node.addQueue(one);
    node.addQueue(two);
    node.addQueue(three);
    node.addQueue(four);

    assertThat(all()).containsExactly(one, two, three, four);
    assertThat(node.queue(key(3))).isSameAs(three); // an equal key, not the queue's own
    assertThat(node.queue(key(5))).isNull();

    node.removeQueue(key(3));
    assertThat(all()).containsExactly(one, two, four);
    node.removeQueue(key(1)); // the first: the next takes its place
    assertThat(all()).containsExactly(two, four);
    assertThat(node.queue(key(4))).isSameAs(four);
    node.removeQueue(key(9)); // none such: nothing changes
    assertThat(all()).containsExactly(two, four);

    HostQueue again = queue(1);
    node.addQueue(again);
    assertThat(all()).containsExactly(two, four, again);
    node.removeQueue(key(4));
    node.removeQueue(key(2));
    node.removeQueue(key(1));
    assertThat(node.queueCount()).isZero();
    assertThat(node.queue(key(2))).isNull();
  }
}
