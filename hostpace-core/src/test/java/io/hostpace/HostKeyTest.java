package io.hostpace;

import io.hostpace.internal.Redaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostKeyTest {

    private static String key(String uri) {
        return HostKey.of(URI.create(uri));
    }

    // --- of(URI) -------------------------------------------------------------------------------

    @Test
    void hostsThatDifferOnlyInCaseTrailingDotOrDefaultPortShareOneKey() {
        assertThat(List.of(
                        key("http://Example.ORG./x"),
                        key("http://example.org:80/"),
                        key("http://example.org"),
                        key("HTTP://EXAMPLE.ORG.:80/?q=1"),
                        key("https://example.org:443/"),
                        key("ws://example.org:80/socket"),
                        key("wss://example.org:443/"),
                        key("http://example.org:/"),
                        key("http://example.org:0080/")))
                .containsOnly("example.org");
    }

    @Test
    void idnHostAndItsPunycodeShareOneKey() {
        assertThat(key("http://bücher.example/")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("http://BÜCHER.Example./")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("http://xn--bcher-kva.example/")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("http://XN--BCHER-KVA.EXAMPLE/")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("http://b%C3%BCcher.example/")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("http://b%C3%BCcher.ex%61mple/")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("http://bü%63her.example/")).isEqualTo("xn--bcher-kva.example");
        assertThat(key("https://bücher.example:8443/")).isEqualTo("xn--bcher-kva.example:8443");
        assertThat(HostKey.normaliseLimitKey("Bücher.example")).isEqualTo("xn--bcher-kva.example");
    }

    @Test
    void p4_aPortOtherThanTheWebsTwoDefaultsIsPartOfTheKey() {
        assertThat(key("https://example.org:8443/")).isEqualTo("example.org:8443");
        assertThat(key("http://Example.org.:8080/x")).isEqualTo("example.org:8080");
        assertThat(key("ftp://example.org:21/")).isEqualTo("example.org:21");
    }

    @Test
    void p4_ports80And443AreDroppedWhateverTheScheme() {
        assertThat(List.of(
                        key("http://example.org:443/"),
                        key("https://example.org:80/"),
                        key("//example.org:80/relative"),
                        key("ftp://example.org:443/")))
                .containsOnly("example.org");
    }

    @Test
    void p4_keysOfTheSameHostOnDifferentPortsDiffer() {
        assertThat(key("http://example.org:8080/")).isNotEqualTo(key("http://example.org:8081/"));
        assertThat(key("http://example.org:8080/")).isNotEqualTo(key("http://example.org/"));
    }

    @Test
    void ipv6LiteralsKeepTheirBracketsInLowerCase() {
        assertThat(key("http://[::1]:8080/")).isEqualTo("[::1]:8080");
        assertThat(key("http://[::1]/")).isEqualTo("[::1]");
        assertThat(key("http://[::1]:80/")).isEqualTo("[::1]");
        assertThat(key("https://[2001:DB8::A]/")).isEqualTo("[2001:db8::a]");
        assertThat(key("http://user@[::1]:99/")).isEqualTo("[::1]:99");
    }

    @Test
    void ipv6LiteralsAreWrittenAsRfc5952Says() {
        assertThat(List.of(
                        key("http://[0:0:0:0:0:0:0:1]/"),
                        key("http://[::0001]/"),
                        key("http://[0000::1]:80/"),
                        key("https://[0:0::0:1]:443/")))
                .containsOnly("[::1]");
        assertThat(key("http://[2001:0DB8:0000:0000:0001:0000:0000:0001]/")).isEqualTo("[2001:db8::1:0:0:1]");
        assertThat(key("http://[2001:db8:0:1:1:1:1:1]/")).isEqualTo("[2001:db8:0:1:1:1:1:1]"); // one zero: no "::"
        assertThat(key("http://[2001:0:0:1:0:0:0:1]/")).isEqualTo("[2001:0:0:1::1]"); // the longest run
        assertThat(key("http://[2001:db8:0:0:1:0:0:1]/")).isEqualTo("[2001:db8::1:0:0:1]"); // the first of equal runs
        assertThat(key("http://[::]/")).isEqualTo("[::]");
        assertThat(key("http://[::127.0.0.1]/")).isEqualTo("[::7f00:1]"); // IPv4-compatible: still IPv6 to the JDK
    }

    @Test
    void anIpv4MappedIpv6LiteralIsItsIpv4Address() {
        // The JDK connects to 127.0.0.1 over IPv4 for [::ffff:127.0.0.1]: one host.
        assertThat(List.of(
                        key("http://[::ffff:127.0.0.1]:8080/"),
                        key("http://[::FFFF:7F00:1]:8080/"),
                        key("http://[0:0:0:0:0:ffff:127.0.0.1]:8080/"),
                        key("http://127.0.0.1:8080/")))
                .containsOnly("127.0.0.1:8080");
    }

    @Test
    void anIpv6ZoneIsKeptAsWritten() {
        assertThat(key("http://[FE80::0001%25eth0]:8080/")).isEqualTo("[fe80::1%25eth0]:8080");
        assertThat(key("http://[fe80::1%25eth0]/")).isNotEqualTo(key("http://[fe80::1%25eth1]/"));
        assertThat(HostKey.normaliseLimitKey("[fe80::1%eth0]")).isEqualTo("[fe80::1%25eth0]");
    }

    @Test
    void ipv4InEveryFormTheJdkReadsAsAnAddressIsOneHost() {
        // 127.1 and 127.0.1 are registry-based to java.net.URI (its host is null), but OkHttp and
        // InetAddress send them to 127.0.0.1; 2130706433 is a host name to URI and 127.0.0.1 to InetAddress.
        assertThat(List.of(
                        key("http://127.0.0.1/"),
                        key("http://127.1/"),
                        key("http://127.0.1:80/"),
                        key("http://2130706433/"),
                        key("http://127.000.000.001/"),
                        key("http://0127.0.0.01/"),
                        key("http://127.0.0.1./")))
                .containsOnly("127.0.0.1");
        assertThat(key("http://1.2.3/")).isEqualTo("1.2.0.3");
        assertThat(key("http://1.65535:8080/")).isEqualTo("1.0.255.255:8080");
        assertThat(key("http://4294967295/")).isEqualTo("255.255.255.255");
    }

    @Test
    void ipv4PartsAreDecimalAsTheJdkReadsThem() {
        // InetAddress reads 0177.0.0.1 as 177.0.0.1, not as octal 127.0.0.1 as inet_aton would.
        assertThat(key("http://0177.0.0.1/")).isEqualTo("177.0.0.1");
    }

    @Test
    void textTheJdkLooksUpAsANameStaysAName() {
        assertThat(key("http://0x7f.1/")).isEqualTo("0x7f.1");
        assertThat(key("http://1.2.3.4.5/")).isEqualTo("1.2.3.4.5");
        assertThat(key("http://256.1.1.1/")).isEqualTo("256.1.1.1");
        assertThat(key("http://1.16777216/")).isEqualTo("1.16777216");
        assertThat(key("http://00000000000127.1/")).isEqualTo("00000000000127.1"); // over 15 characters
        assertThat(key("http://localhost/")).isEqualTo("localhost").isNotEqualTo(key("http://127.0.0.1/"));
    }

    @Test
    void ipv4AddressesAreHosts() {
        assertThat(key("http://192.0.2.1:80/")).isEqualTo("192.0.2.1");
        assertThat(key("http://192.0.2.1:8080/")).isEqualTo("192.0.2.1:8080");
    }

    @Test
    void userInfoIsNotPartOfTheKey() {
        assertThat(key("http://user:secret@Example.org/")).isEqualTo("example.org");
        assertThat(key("http://user:secret@example.org:8080/")).isEqualTo("example.org:8080");
    }

    @Test
    void hostsWithUnderscoresWhichJavaLeavesRegistryBasedGetKeysToo() {
        assertThat(URI.create("http://a_b.example.org/").getHost()).isNull();
        assertThat(key("http://a_b.example.org/")).isEqualTo("a_b.example.org");
        assertThat(key("http://user:pw@A_B.Example.ORG.:8080/")).isEqualTo("a_b.example.org:8080");
        assertThat(key("http://a_b.example.org:80/")).isEqualTo("a_b.example.org");
        assertThat(key("https://a_b.example.org:443/")).isEqualTo("a_b.example.org");
        assertThat(key("http://a_b.example.org:/")).isEqualTo("a_b.example.org");
    }

    @Test
    void otherHostsJavaLeavesRegistryBasedGetKeysToo() {
        assertThat(key("http://a.1b:8080/")).isEqualTo("a.1b:8080");
        assertThat(key("http://-a.example.org/")).isEqualTo("-a.example.org");
    }

    @Test
    void plainLowerCaseHostIsReturnedWithoutCopying() {
        URI uri = URI.create("https://example.org/path");
        assertThat(HostKey.of(uri)).isSameAs(uri.getHost());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mailto:x", "http:///path", "file:/x", "file:///x",
            "http://:8080/", "relative/path"})
    void uriWithoutHostIsRejectedNamingTheUri(String uri) {
        assertThatThrownBy(() -> key(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("URI '" + uri + "' has no host");
    }

    @Test
    void uriWithOnlyUserInfoHasNoHost() {
        assertThatThrownBy(() -> key("http://user:secret@/"))
                .hasMessage("URI 'http://***@/' has no host");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://a..b/", "http://exa%20mple.org/", "http://a_b..org/",
            "http://a%C3.org/", "http://a.%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC%C3%BC.org/"})
    void uriWithInvalidHostIsRejectedNamingTheUri(String uri) {
        assertThatThrownBy(() -> key(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("URI '" + uri + "' has an invalid host");
    }

    @Test
    void invalidHostMessageSaysWhatIsWrong() {
        assertThatThrownBy(() -> key("http://a..b/"))
                .hasMessage("URI 'http://a..b/' has an invalid host 'a..b': 'a..b' has an empty label");
        String longLabel = "a".repeat(64);
        assertThatThrownBy(() -> key("http://" + longLabel + ".org/"))
                .hasMessageContaining("longer than 63 characters");
        assertThatThrownBy(() -> key("http://exa%20mple.org/"))
                .hasMessageContaining("contains ' '");
        assertThatThrownBy(() -> key("http://" + "ü".repeat(64) + ".org/"))
                .hasMessageContaining("is not a valid international domain name");
        assertThatThrownBy(() -> key("http://a%C3.org/"))
                .hasMessage("URI 'http://a%C3.org/' has an invalid host 'a%C3.org': it has malformed percent-encoding");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://example.org:0/", "http://example.org:65536/",
            "http://example.org:99999999999/", "http://a_b.org:0/", "http://a_b.org:x/",
            "http://example.org:80:90/"})
    void uriWithInvalidPortIsRejectedNamingTheUri(String uri) {
        assertThatThrownBy(() -> key(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("URI '" + uri + "' has an invalid port: expected 1 to 65535");
    }

    @Test
    void errorMessagesMaskUserInfo() {
        assertThatThrownBy(() -> key("http://user:secret@a..b/x"))
                .hasMessageStartingWith("URI 'http://***@a..b/x' has an invalid host 'a..b'")
                .message().doesNotContain("secret");
        assertThatThrownBy(() -> key("http://user:secret@a_b.org:0/"))
                .message().doesNotContain("secret");
    }

    // --- hostName ------------------------------------------------------------------------------

    @Test
    void hostNameDropsThePort() {
        assertThat(HostKey.hostName("example.org:8080")).isEqualTo("example.org");
        assertThat(HostKey.hostName("example.org")).isEqualTo("example.org");
        assertThat(HostKey.hostName("[::1]:80")).isEqualTo("[::1]");
        assertThat(HostKey.hostName("[::1]")).isEqualTo("[::1]");
    }

    // --- normaliseLimitKey ---------------------------------------------------------------------

    @Test
    void limitKeysAreNormalisedLikeHostKeys() {
        assertThat(HostKey.normaliseLimitKey("Example.ORG.")).isEqualTo("example.org");
        assertThat(HostKey.normaliseLimitKey(" example.org ")).isEqualTo("example.org");
        assertThat(HostKey.normaliseLimitKey("A_B.example.org")).isEqualTo("a_b.example.org");
        assertThat(HostKey.normaliseLimitKey("[::1]")).isEqualTo("[::1]");
        assertThat(HostKey.normaliseLimitKey("[2001:DB8::A]:8080")).isEqualTo("[2001:db8::a]:8080");
    }

    @Test
    void p4_aLimitKeysDefaultPortIsDroppedAsAUrlsIs() {
        assertThat(HostKey.normaliseLimitKey("example.org.:80")).isEqualTo(key("http://example.org/"));
        assertThat(HostKey.normaliseLimitKey("Example.org:443")).isEqualTo(key("https://example.org/"));
        assertThat(HostKey.normaliseLimitKey("example.org:0080")).isEqualTo("example.org");
        assertThat(HostKey.limitKey("example.org:80")).isEqualTo(new HostKey.LimitKey("example.org", false));
        assertThat(HostKey.limitKey("example.org:443")).isEqualTo(new HostKey.LimitKey("example.org", false));
        assertThat(HostKey.limitKey("example.org")).isEqualTo(new HostKey.LimitKey("example.org", true));
        assertThat(HostKey.limitKey("*.example.org")).isEqualTo(new HostKey.LimitKey("*.example.org", true));
    }

    @Test
    void p4_limitKeysKeepAnyOtherPort() {
        assertThat(HostKey.normaliseLimitKey("Example.org:8080")).isEqualTo("example.org:8080");
        assertThat(HostKey.normaliseLimitKey("example.org:08080")).isEqualTo("example.org:8080");
        assertThat(HostKey.normaliseLimitKey("example.org:1")).isEqualTo("example.org:1");
        assertThat(HostKey.normaliseLimitKey("example.org:65535")).isEqualTo("example.org:65535");
    }

    @Test
    void p4_limitKeyWithPortMatchesTheHostKeyOfAUriOnThatPort() {
        assertThat(HostKey.normaliseLimitKey("EXAMPLE.org:8080")).isEqualTo(key("http://example.org:8080/"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.org:0", "example.org:65536", "example.org:", "example.org:http",
            "example.org:-1", "example.org:80:90", "[::1]:0"})
    void p4_limitKeyWithInvalidPortIsRejectedNamingTheKey(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("host limit '" + key + "' has an invalid port: expected 1 to 65535");
    }

    @Test
    void p5_groupKeysAreNormalised() {
        assertThat(HostKey.normaliseLimitKey("*.Example.ORG.")).isEqualTo("*.example.org");
        assertThat(HostKey.normaliseLimitKey("*.bücher.example")).isEqualTo("*.xn--bcher-kva.example");
        assertThat(HostKey.normaliseLimitKey("*.a.b.example.org")).isEqualTo("*.a.b.example.org");
    }

    @Test
    void p5_aGroupNeedsADomainOfAtLeastTwoLabels() {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey("*.wikidata"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "host limit '*.wikidata' is not a domain: expected '*.' followed by a domain name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"*", "*.", "**.x.org", "a.*.org", "*.*.org", "*x.org", "x.org.*"})
    void p5_misplacedWildcardsAreRejectedNamingTheKey(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("host limit '" + key + "' is not a ");
    }

    @Test
    void p5_aGroupHasNoPort() {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey("*.example.org:8080"))
                .hasMessageStartingWith("host limit '*.example.org:8080' is not a domain:")
                .hasMessageContaining("without port");
    }

    @ParameterizedTest
    @ValueSource(strings = {"exa mple.org", "x.org/path", "user@x.org", "x.org?q",
            "a..b", ":8080", "[::1", "[::g]", "[::1]x", "."})
    void limitKeyThatIsNotAHostIsRejectedNamingTheKey(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("host limit '" + key + "' is not a host: ");
    }

    @Test
    void limitKeysOfIpAddressesAreNormalisedLikeAUrlsHost() {
        assertThat(HostKey.normaliseLimitKey("127.1:8080")).isEqualTo(key("http://127.0.0.1:8080/"));
        assertThat(HostKey.normaliseLimitKey("[::ffff:127.0.0.1]")).isEqualTo("127.0.0.1");
        assertThat(HostKey.normaliseLimitKey("[0:0:0:0:0:0:0:1]:80")).isEqualTo(key("http://[::1]/"));
        assertThat(HostKey.normaliseLimitKey("[2001:DB8::A]:8080")).isEqualTo("[2001:db8::a]:8080");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://x.org", "https://x.org:8443", "HTTP://x.org/"})
    void aLimitKeyWithASchemeIsRejectedSayingSo(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("host limit '" + key + "' has a scheme: expected a host without scheme");
    }

    @ParameterizedTest
    @ValueSource(strings = {"::1", "2001:db8::1", "fe80::1:8080"})
    void anIpv6AddressWithoutBracketsIsRejectedSayingHowToWriteIt(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .hasMessage("host limit '" + key + "' is not a host: an IPv6 address is written in brackets, such as '["
                        + key + "]'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[12345::1]", "[::1.2.3]", "[::1%]", "[::1%25]",
            "[fe80::1%25e/x]", "[]", "[:::1]", "[1:2:3:4:5:6:7]"})
    void aMalformedIpv6LiteralIsRejected(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("host limit '" + key + "' is not a ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"*.0.1", "*.127.0.0.1", "*.1.2.3"})
    void p5_aGroupOfAnIpAddressIsRejected(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .hasMessageStartingWith("host limit '" + key + "' is not a domain: '" + key.substring(2)
                        + "' is the IP address ");
    }

    @Test
    void p5_anIpAddressIsInNoGroup() {
        assertThat(HostKey.inGroup(key("http://1.2.3.4/"), "*.example.org")).isFalse();
        assertThat(HostKey.inGroup(key("http://[::1]/"), "*.example.org")).isFalse();
    }

    @Test
    void limitKeyErrorSaysWhatIsWrongWithTheHost() {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey("exa mple.org"))
                .hasMessageStartingWith("host limit 'exa mple.org' is not a host: 'exa mple.org' contains ' '");
        String tooLong = "ü".repeat(64) + ".org";
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(tooLong))
                .hasMessageStartingWith("host limit '" + tooLong + "' is not a host: ")
                .hasMessageContaining("is not a valid international domain name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t"})
    void emptyOrBlankLimitKeyIsRejected(String key) {
        assertThatThrownBy(() -> HostKey.normaliseLimitKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("host limit '" + key.replace("\t", "\\t") + "' is empty");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Example.ORG.", "example.org:8080", "*.Example.org", "[::1]:80", "bücher.example",
            "127.1:8080", "[0:0::1]", "[::FFFF:127.0.0.1]:99", "[fe80::1%25eth0]"})
    void normalisingALimitKeyTwiceChangesNothing(String key) {
        String once = HostKey.normaliseLimitKey(key);
        assertThat(HostKey.normaliseLimitKey(once)).isEqualTo(once);
    }

    // --- groups --------------------------------------------------------------------------------

    @Test
    void isGroupRecognisesGroupKeys() {
        assertThat(HostKey.isGroup("*.example.org")).isTrue();
        assertThat(HostKey.isGroup("example.org")).isFalse();
        assertThat(HostKey.isGroup("example.org:8080")).isFalse();
    }

    @Test
    void p5_aGroupCoversEveryHostUnderItsDomainAtAnyDepthAndPort() {
        String group = HostKey.normaliseLimitKey("*.Example.org");
        assertThat(HostKey.inGroup(key("http://a.example.org/"), group)).isTrue();
        assertThat(HostKey.inGroup(key("http://X.Y.example.org/"), group)).isTrue();
        assertThat(HostKey.inGroup(key("https://a.example.org:8443/"), group)).isTrue();
        assertThat(HostKey.inGroup(key("http://a_b.example.org:8080/"), group)).isTrue();
    }

    @Test
    void p5_aGroupDoesNotCoverItsApex() {
        assertThat(HostKey.inGroup("example.org", "*.example.org")).isFalse();
        assertThat(HostKey.inGroup("example.org:8080", "*.example.org")).isFalse();
    }

    @Test
    void p5_aGroupDoesNotCoverHostsThatMerelyEndWithItsDomainName() {
        assertThat(HostKey.inGroup("badexample.org", "*.example.org")).isFalse();
        assertThat(HostKey.inGroup("example.org.evil.net", "*.example.org")).isFalse();
        assertThat(HostKey.inGroup("org", "*.example.org")).isFalse();
        assertThat(HostKey.inGroup("[::1]:80", "*.example.org")).isFalse();
    }

    @Test
    void p5_idnHostsBelongToTheirPunycodeGroup() {
        String group = HostKey.normaliseLimitKey("*.bücher.example");
        assertThat(HostKey.inGroup(key("http://www.bücher.example/"), group)).isTrue();
        assertThat(HostKey.inGroup(key("http://www.xn--bcher-kva.example/"), group)).isTrue();
    }

    @Test
    void inGroupRejectsAKeyThatIsNotAGroup() {
        assertThatThrownBy(() -> HostKey.inGroup("a.example.org", "example.org"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'example.org'");
    }

    // --- Hostpace.checkKey: the keys a fleet or a store may be handed ---------------------------

    @ParameterizedTest
    @ValueSource(strings = {"example.org", "example.org:8080", "*.example.org", "127.0.0.1:8080", "[::1]",
            "xn--bcher-kva.example", "a_b.example"})
    void theKeysTheEngineWritesAreTaken(String key) {
        assertThat(Hostpace.checkKey(key)).isSameAs(key);
        assertThat(Hostpace.checkKey(HostKey.of(URI.create("http://" + key.replace("*.", "www.") + "/")))).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "a\nb", "a b", "*.test", "*.org", "http://example.org", "example.org/x",
            "a\u0000b", "*.example.org:80", "example.org:0"})
    void aKeyThatNamesNoHostOrGroupIsRefusedOnOneLine(String key) {
        assertThatThrownBy(() -> Hostpace.checkKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("expected a host's key or a group's: host limit '" + Redaction.printable(key) + "'")
                .hasMessageNotContaining("\n").hasMessageNotContaining("\u0000");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Example.org", "example.org.", "example.org:443", " example.org", "127.1", "[0:0::1]",
            "bücher.example"})
    void aKeyWrittenOtherwiseThanTheEngineWritesItIsRefusedNamingTheEnginesSpelling(String key) {
        assertThatThrownBy(() -> Hostpace.checkKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key '" + key + "' is not written as the engine writes its keys: expected '"
                        + HostKey.normaliseLimitKey(key) + "'");
    }

    // --- Hostpace.normaliseKey: a key written any way a limit's may be, as the engine writes it ---

    @ParameterizedTest(name = "{0} reads as {1}")
    @CsvSource({
            "Example.ORG,        example.org",
            "example.org.,       example.org",
            "example.org:443,    example.org",        // the port of https, as a URL's host drops it
            "EXAMPLE.org:8080,   example.org:8080",
            "*.Example.org,      *.example.org",
            "127.1,              127.0.0.1",
            "example.org,        example.org"})
    void P4_aKeyWrittenAnyWayALimitsMayBeReadsAsTheEngineWritesIt(String key, String expected) {
        assertThat(Hostpace.normaliseKey(key)).isEqualTo(expected).isEqualTo(HostKey.normaliseLimitKey(key));
        assertThat(Hostpace.checkKey(Hostpace.normaliseKey(key))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "a\nb", "*.org", "http://example.org", "example.org:0"})
    void P4_aKeyThatNamesNoHostOrGroupIsNotNormalisedButRefusedOnOneLine(String key) {
        assertThatThrownBy(() -> Hostpace.normaliseKey(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("expected a host's key or a group's: ")
                .hasMessageNotContaining("\n");
    }

    // --- Hostpace.inGroup: the groups a host's key is in, for those outside the engine ------------

    @ParameterizedTest(name = "{0} is in {1}")
    @CsvSource({
            "query.wikidata.org,         *.wikidata.org",
            "a.b.wikidata.org,           *.wikidata.org",              // at any depth
            "a.b.wikidata.org,           *.b.wikidata.org",            // a group of three labels
            "query.wikidata.org:8443,    *.wikidata.org",              // on any port
            "www.xn--bcher-kva.example,  *.xn--bcher-kva.example"})
    void p5_aHostsKeyIsInTheGroupsOfItsDomainsAtAnyDepthAndPortAsTheEngineDecides(String host, String group) {
        assertThat(Hostpace.inGroup(host, group)).isTrue();
    }

    @ParameterizedTest(name = "{0} is not in {1}")
    @CsvSource({
            "wikidata.org,               *.wikidata.org",              // the apex
            "wikidata.org:8080,          *.wikidata.org",              // the apex on a port
            "notwikidata.org,            *.wikidata.org",
            "wikidata.org.evil.net,      *.wikidata.org",
            "1.2.3.4,                    *.wikidata.org",
            "[::1]:8080,                 *.wikidata.org"})
    void p5_neitherAGroupsDomainNorANameThatMerelyEndsLikeItNorAnIpAddressIsInTheGroup(String host, String group) {
        assertThat(Hostpace.inGroup(host, group)).isFalse();
    }

    @Test
    void p5_aKeyThatIsNotAGroupsIsRefusedNamingIt() {
        assertThatThrownBy(() -> Hostpace.inGroup("a.example.org", "example.org"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'example.org' is not a group key ('*.domain')");
    }
}
