package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Host keys under random names: kept apart from the examples, so each engine reports its own class. */
class HostKeyPropertiesTest {

    @Property
    void upperCaseTrailingDotAndDefaultPortNormaliseAway(@ForAll("hosts") String host) {
        assertThat(HostKey.of(URI.create("http://" + host.toUpperCase(Locale.ROOT) + ".:80/")))
                .isEqualTo(host);
    }

    @Provide
    Arbitrary<String> hosts() {
        Arbitrary<String> label = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withCharRange('0', '9') // digits make some hosts registry-based, e.g. "a.1b"
                .ofMinLength(1)
                .ofMaxLength(20);
        // A name with a letter: all digits, "1.2.3" is an IPv4 address (1.2.0.3), see IpLiteral.
        return label.list().ofMinSize(1).ofMaxSize(6).map(labels -> String.join(".", labels))
                .filter(host -> host.chars().anyMatch(Character::isLetter));
    }
}
