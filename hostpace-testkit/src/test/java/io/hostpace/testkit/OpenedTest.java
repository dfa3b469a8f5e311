package io.hostpace.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a test opened is closed in the order asked for, everything tried whatever fails. */
class OpenedTest {

  final List<String> closedInOrder = new ArrayList<>();

  AutoCloseable named(String name) {
    return () -> closedInOrder.add(name);
  }

  @Test
  void closesFirstAddedFirstUnlessAskedForLastFirst() throws Exception {
    Opened inOrder = new Opened();
    inOrder.add(named("upstream"));
    inOrder.add(named("engine"));
    inOrder.add(named("proxy"));
    inOrder.close();
    assertThat(closedInOrder).containsExactly("upstream", "engine", "proxy");

    closedInOrder.clear();
    Opened lastFirst = Opened.lastFirst();
    lastFirst.add(named("upstream"));
    lastFirst.add(named("engine"));
    lastFirst.add(named("proxy"));
    lastFirst.close();
    assertThat(closedInOrder).containsExactly("proxy", "engine", "upstream");
  }

  @Test
  void triesEverythingAndThrowsTheFirstFailure() {
    Opened lastFirst = Opened.lastFirst();
    lastFirst.add(named("upstream"));
    lastFirst.add(() -> {
      throw new IllegalStateException("engine");
    });
    lastFirst.add(() -> {
      throw new IllegalStateException("proxy");
    });
    assertThatThrownBy(lastFirst::close).hasMessage("proxy")
        .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage).containsExactly("engine"));
    assertThat(closedInOrder).containsExactly("upstream");
  }
}
