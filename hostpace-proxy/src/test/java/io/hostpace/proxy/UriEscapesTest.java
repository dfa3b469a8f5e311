package io.hostpace.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How a request's path and query are made a URI to send upstream. */
class UriEscapesTest {

  @Test
  void X1_whatAUriRefusesIsEscapedAsUtf8AndWhatItTakesIsKeptAsSent() {
    assertThat(UriEscapes.query("a=1&b=x/y?z:@$,;+=[]-_.!~*'()")).isEqualTo("a=1&b=x/y?z:@$,;+=[]-_.!~*'()");
    assertThat(UriEscapes.query("q=ASK{} \"|^`<>\\#")).isEqualTo("q=ASK%7B%7D%20%22%7C%5E%60%3C%3E%5C%23");
    assertThat(UriEscapes.query("%7b%7D%zz%4%")).as("escapes kept, a % that starts none escaped").isEqualTo("%7b%7D%25zz%254%25");
    assertThat(UriEscapes.query("\u00e9\u20ac\uD83D\uDE00")).isEqualTo("%C3%A9%E2%82%AC%F0%9F%98%80");
    assertThat(UriEscapes.path("/a;b=c/d:e@f[g]")).as("brackets are a query's, not a path's").isEqualTo("/a;b=c/d:e@f%5Bg%5D");
    assertThat(UriEscapes.path("/a?b")).isEqualTo("/a%3Fb");
  }

  @Test
  void X1_aUriThatCannotBeReadIsRefusedNamingTheCharacterOrHostNeverTheUrl() {
    assertThatThrownBy(() -> UriEscapes.upstream("http://upstream.example/base/x?q=\"1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'\"'").hasMessageNotContaining("upstream.example");
    assertThatThrownBy(() -> UriEscapes.upstream("http://a_b:8080/x"))
        .hasMessageContaining("a_b:8080").hasMessageContaining("java.net.URI");
  }
}
