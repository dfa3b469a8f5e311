package io.hostpace.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** A route's matching and checks, without a server (Jetty refuses some such paths before the proxy sees them). */
class RouteTest {

  private final Route route = new Route("/qlever", URI.create("https://qlever.dev/api"));

  @Test
  void X3_aDotSegmentEscapedOrWithParametersIsRefusedToo() {
    for (String path : new String[] {"/qlever/%2e%2e/x", "/qlever/.%2E", "/qlever/%2E/x", "/qlever/..;a=b/x", "/qlever/.;/x"}) {
      assertThatThrownBy(() -> route.upstream(path, null)).as(path)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(path).hasMessageNotContaining("qlever.dev");
    }
    assertThat(route.upstream("/qlever/wikidata/..x/.y", "q=1")).isEqualTo(URI.create("https://qlever.dev/api/wikidata/..x/.y?q=1"));
    assertThat(route.upstream("/qleverx/../x", null)).as("not the route's").isNull();
  }
}
