package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

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

  @Test
  void S5_aHostAndItsGroupsAreTaggedByTheLastTwoLabelsWhateverThePortOrDepth() {
    assertThat(RedisKeys.tag("a.blog.example.org")).isEqualTo("example.org");
    assertThat(RedisKeys.tag("a.blog.example.org:8080")).isEqualTo("example.org");
    assertThat(RedisKeys.tag("*.example.org")).isEqualTo("example.org");
    assertThat(RedisKeys.tag("*.blog.example.org")).isEqualTo("example.org");
    assertThat(RedisKeys.tag("example.org")).isEqualTo("example.org");
    assertThat(RedisKeys.tag("example.org:8443/quota")).isEqualTo("example.org");
    assertThat(RedisKeys.tag("xn--bcher-kva.example")).isEqualTo("xn--bcher-kva.example");
  }

  @Test
  void S5_anIpLiteralOrAOneLabelNameIsItsOwnTagWithoutItsPort() {
    assertThat(RedisKeys.tag("127.0.0.1")).isEqualTo("127.0.0.1");
    assertThat(RedisKeys.tag("127.0.0.1:8080")).isEqualTo("127.0.0.1");
    assertThat(RedisKeys.tag("10.1.2.3:8080/quota")).isEqualTo("10.1.2.3");
    assertThat(RedisKeys.tag("[::1]:8080")).isEqualTo("[::1]");
    assertThat(RedisKeys.tag("[2001:db8::1]")).isEqualTo("[2001:db8::1]");
    assertThat(RedisKeys.tag("localhost:3030")).isEqualTo("localhost");
    assertThat(RedisKeys.tag("*.org")).as("a group of one label: not its hosts' tag").isEqualTo("org");
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
