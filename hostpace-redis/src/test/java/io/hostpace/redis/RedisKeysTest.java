package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The layout of a fleet's keys (SPEC S5): readable, one per fleet and key, and tagged so that a
 * host's keys and its groups' share a slot of a Redis Cluster while other domains spread.
 */
class RedisKeysTest {

  final RedisKeys crawlers = new RedisKeys("crawlers");

  @Test
  void S5_keysNameTheFleetTheKindTheTagInBracesAndTheEnginesKey() {
    assertThat(crawlers.lessons()).isEqualTo("hostpace:crawlers:lessons");
    assertThat(crawlers.last("query.wikidata.org")).isEqualTo("hostpace:crawlers:last:{wikidata.org}:query.wikidata.org");
    assertThat(crawlers.last("*.wikidata.org")).isEqualTo("hostpace:crawlers:last:{wikidata.org}:*.wikidata.org");
    assertThat(crawlers.places("query.wikidata.org")).isEqualTo("hostpace:crawlers:places:{wikidata.org}:query.wikidata.org");
    assertThat(crawlers.places("example.org/quota")).isEqualTo("hostpace:crawlers:places:{example.org}:example.org/quota");
    assertThat(new RedisKeys("nightly").last("example.org")).isEqualTo("hostpace:nightly:last:{example.org}:example.org");
  }

  @ParameterizedTest(name = "{0} is tagged {1}")
  @CsvSource({
      // A host and its groups: the last two labels, whatever the port or depth.
      "a.blog.example.org, example.org",
      "a.blog.example.org:8080, example.org",
      "*.example.org, example.org",
      "*.blog.example.org, example.org",
      "example.org, example.org",
      "example.org:8443/quota, example.org",
      "xn--bcher-kva.example, xn--bcher-kva.example",
      // An IP literal or a one-label name: itself, without its port.
      "127.0.0.1, 127.0.0.1",
      "127.0.0.1:8080, 127.0.0.1",
      "10.1.2.3:8080/quota, 10.1.2.3",
      "[::1]:8080, [::1]",
      "[2001:db8::1], [2001:db8::1]",
      "localhost:3030, localhost",
      "*.org, org", // a group of one label: not its hosts' tag
  })
  void S5_aHostAndItsGroupsAreTaggedByTheLastTwoLabelsAndAnIpLiteralOrAOneLabelNameByItselfWithoutItsPort(
      String key, String tag) {
    assertThat(RedisKeys.tag(key)).isEqualTo(tag);
  }

  @Test
  void S5_aHostsKeysShareASlotWithItsGroupsAndOtherDomainsSpread() {
    assertThat(SlotHash.getSlot(crawlers.last("query.wikidata.org")))
        .isEqualTo(SlotHash.getSlot(crawlers.last("*.wikidata.org")))
        .isEqualTo(SlotHash.getSlot(crawlers.places("query.wikidata.org")))
        .isEqualTo(SlotHash.getSlot(crawlers.places("query.wikidata.org/quota")));
    assertThat(SlotHash.getSlot(crawlers.last("query.wikidata.org")))
        .isNotEqualTo(SlotHash.getSlot(crawlers.last("dbpedia.org")));
    assertThat(SlotHash.getSlot(crawlers.last("a.example.org")))
        .as("a group of one label is in another slot than its hosts")
        .isNotEqualTo(SlotHash.getSlot(crawlers.last("*.org")));
  }
}
