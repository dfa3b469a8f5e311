package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Host keys under random names, addresses and spellings (SPEC: host, P4): every spelling of one
 * host, in a URL or a limit's key, is one key. Kept apart from the examples, so each engine
 * reports its own class; the tries come from the build.
 */
class HostKeyPropertiesTest {

    private static final int SPELLINGS = 12;

    @Property
    void upperCaseTrailingDotAndDefaultPortNormaliseAway(@ForAll("hosts") String host) {
        assertThat(HostKey.of(URI.create("http://" + host.toUpperCase(Locale.ROOT) + ".:80/")))
                .isEqualTo(host);
    }

    @Property
    void everySpellingOfANameIsOneKey(@ForAll("hosts") String host, @ForAll("ports") int port, @ForAll Random random) {
        String expected = port == -1 ? host : host + ":" + port;
        for (int i = 0; i < SPELLINGS; i++) {
            String spelled = spellName(host, random);
            assertThat(keys(spelled, port, random)).as(spelled).containsOnly(expected);
        }
    }

    @Property
    void everySpellingOfAnIpv4AddressIsOneKeyNamingThatAddress(
            @ForAll("addresses") int address, @ForAll("ports") int port, @ForAll Random random) throws UnknownHostException {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < SPELLINGS; i++) {
            keys.addAll(keys(spellIpv4(address, random), port, random));
        }
        String key = keys.get(0);
        assertThat(keys).containsOnly(key);
        String host = port == -1 ? key : key.substring(0, key.lastIndexOf(':'));
        assertThat(InetAddress.getByName(host).getAddress()).isEqualTo(bytes(address)); // a dotted quad: no look-up
    }

    @Property
    void everySpellingOfAnIpv6AddressIsOneKeyInRfc5952Form(
            @ForAll("ipv6") int[] groups, @ForAll("ports") int port, @ForAll Random random) throws UnknownHostException {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < SPELLINGS; i++) {
            keys.addAll(keys(spellIpv6(groups, random), port, random));
        }
        String key = keys.get(0);
        assertThat(keys).containsOnly(key);
        String host = port == -1 ? key : key.substring(0, key.lastIndexOf(':'));
        assertThat(host).startsWith("[").endsWith("]").isLowerCase().doesNotContain(".")
                .doesNotContainPattern("(^|[\\[:])0[0-9a-f]"); // no leading zeros
        if (longestZeroRun(groups) >= 2) {
            // "::" stands for the longest run of zeros, the first of equal ones (RFC 5952 section 4.2)
            String inner = host.substring(1, host.length() - 1);
            int at = inner.indexOf("::");
            assertThat(at).as("'::' in %s", host).isNotNegative();
            int[] before = visible(inner.substring(0, at));
            int[] after = visible(inner.substring(at + 2));
            int compressed = 8 - before.length - after.length;
            assertThat(longestZeroRun(before)).isLessThan(compressed);
            assertThat(longestZeroRun(after)).isLessThanOrEqualTo(compressed);
        } else {
            assertThat(host).doesNotContain("::");
        }
        assertThat(InetAddress.getByName(host).getAddress()).isEqualTo(bytes(groups)); // a literal: no look-up
    }

    @Property
    void anIpv4MappedIpv6AddressIsItsIpv4Address(@ForAll("addresses") int address, @ForAll Random random) {
        int[] groups = {0, 0, 0, 0, 0, 0xffff, address >>> 16, address & 0xffff};
        String mapped = spellIpv6(groups, random);
        assertThat(HostKey.of(URI.create("http://" + mapped + "/")))
                .isEqualTo(HostKey.of(URI.create("http://" + spellIpv4(address, random) + "/")))
                .isEqualTo((address >>> 24) + "." + ((address >>> 16) & 0xff) + "." + ((address >>> 8) & 0xff) + "."
                        + (address & 0xff));
    }

    // ---------------------------------------------------------------------------------------

    /** The keys of {@code host} on {@code port} (-1: none) in a URL and as a limit key, each spelt at random. */
    private static List<String> keys(String host, int port, Random random) {
        String scheme = List.of("http", "https", "HTTP", "Https").get(random.nextInt(4));
        String user = random.nextBoolean() ? "" : "user:secret@";
        String url = scheme + "://" + user + host + spellPort(port, true, random) + "/x?q=" + random.nextInt(9);
        String key = host + spellPort(port, false, random);
        return List.of(HostKey.of(URI.create(url)), HostKey.normaliseLimitKey(key));
    }

    /** A port -1 as nothing, an empty port (in a URL) or a default one; any port with leading zeros or not. */
    private static String spellPort(int port, boolean inUrl, Random random) {
        if (port == -1) {
            return List.of("", ":80", ":443", ":0080", inUrl ? ":" : "").get(random.nextInt(5));
        }
        return ":" + "0".repeat(random.nextInt(3)) + port;
    }

    private static String spellName(String host, Random random) {
        StringBuilder spelled = new StringBuilder();
        for (char c : host.toCharArray()) {
            spelled.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
        }
        return random.nextBoolean() ? spelled + "." : spelled.toString();
    }

    /** The address as the JDK reads it in one of its forms: a.b.c.d, a.b.c, a.b, a (with leading zeros); or mapped into IPv6. */
    private static String spellIpv4(int address, Random random) {
        long a = Integer.toUnsignedLong(address);
        List<Long> parts = switch (random.nextInt(5)) {
            case 0 -> List.of(a >>> 24, (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff);
            case 1 -> List.of(a >>> 24, (a >>> 16) & 0xff, a & 0xffff);
            case 2 -> List.of(a >>> 24, a & 0xffffff);
            case 3 -> List.of(a);
            default -> List.of();
        };
        if (parts.isEmpty()) {
            return spellIpv6(new int[] {0, 0, 0, 0, 0, 0xffff, address >>> 16, address & 0xffff}, random);
        }
        List<String> texts = new ArrayList<>();
        for (long part : parts) {
            texts.add(Long.toString(part));
        }
        int room = 15 - String.join(".", texts).length(); // the JDK reads no longer text as an address
        for (int i = 0; i < texts.size() && room > 0; i++) {
            int zeros = random.nextInt(room + 1);
            texts.set(i, "0".repeat(zeros) + texts.get(i));
            room -= zeros;
        }
        return String.join(".", texts);
    }

    /** The groups in brackets: random case and leading zeros, a random zero run as "::", maybe a dotted tail. */
    private static String spellIpv6(int[] groups, Random random) {
        List<String> texts = new ArrayList<>();
        for (int group : groups) {
            String hex = "0".repeat(random.nextInt(4)) + Integer.toHexString(group);
            hex = hex.substring(Math.max(0, hex.length() - 4));
            texts.add(random.nextBoolean() ? hex.toUpperCase(Locale.ROOT) : hex);
        }
        boolean dotted = random.nextInt(4) == 0;
        if (dotted) {
            texts.set(6, (groups[6] >>> 8) + "." + (groups[6] & 0xff) + "." + (groups[7] >>> 8) + "." + (groups[7] & 0xff));
            texts.remove(7);
        }
        List<int[]> zeroRuns = new ArrayList<>();
        int limit = dotted ? 6 : 8;
        for (int i = 0; i < limit; i++) {
            int start = i;
            while (i < limit && groups[i] == 0) {
                i++;
            }
            if (i > start) {
                zeroRuns.add(new int[] {start, i});
            }
        }
        if (!zeroRuns.isEmpty() && random.nextBoolean()) {
            int[] run = zeroRuns.get(random.nextInt(zeroRuns.size()));
            int from = run[0] + random.nextInt(run[1] - run[0]);
            int to = from + 1 + random.nextInt(run[1] - from);
            String head = String.join(":", texts.subList(0, from));
            String tail = String.join(":", texts.subList(to, texts.size()));
            return "[" + head + "::" + tail + "]";
        }
        return "[" + String.join(":", texts) + "]";
    }

    private static int[] visible(String groups) {
        return groups.isEmpty() ? new int[0]
                : java.util.Arrays.stream(groups.split(":")).mapToInt(group -> Integer.parseInt(group, 16)).toArray();
    }

    private static int longestZeroRun(int[] groups) {
        int longest = 0;
        int run = 0;
        for (int group : groups) {
            run = group == 0 ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return longest;
    }

    private static byte[] bytes(int address) {
        return new byte[] {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
    }

    private static byte[] bytes(int[] groups) {
        byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++) {
            bytes[2 * i] = (byte) (groups[i] >>> 8);
            bytes[2 * i + 1] = (byte) groups[i];
        }
        return bytes;
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

    @Provide
    Arbitrary<Integer> ports() {
        return Arbitraries.oneOf(Arbitraries.just(-1), Arbitraries.integers().between(1, 65535)
                .filter(port -> port != 80 && port != 443));
    }

    @Provide
    Arbitrary<Integer> addresses() {
        return Arbitraries.oneOf(Arbitraries.integers(), Arbitraries.of(0x7f000001, 0, -1, 0x01000001));
    }

    /** Eight groups, zero often, so that runs of zeros of every length come up. */
    @Provide
    Arbitrary<int[]> ipv6() {
        Arbitrary<Integer> group = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.just(0)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1, 0xffff)));
        return group.array(Integer[].class).ofSize(8)
                .map(boxed -> {
                    int[] groups = new int[8];
                    for (int i = 0; i < 8; i++) {
                        groups[i] = boxed[i];
                    }
                    return groups;
                })
                .filter(groups -> !(groups[0] == 0 && groups[1] == 0 && groups[2] == 0 && groups[3] == 0
                        && groups[4] == 0 && groups[5] == 0xffff)); // mapped IPv4: its own property
    }
}
