package io.hostpace;

import io.hostpace.internal.Redaction;
import java.net.IDN;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Host keys: the strings that pacing state and configured limits are keyed by. Every host's key,
 * from a URI, a configured limit, a state file or {@code forget}, is made by one function,
 * {@link #key(String, int)}, and a group's domain is normalised as a host name is, so that no
 * spelling of a host escapes its limits.
 *
 * <p>A <em>host key</em> is a URI's host and port, normalised: lower case, no trailing dot,
 * internationalised names in punycode ({@link IDN#toASCII}), an IP address in one canonical form
 * ({@link IpLiteral}: {@code 127.1} is {@code 127.0.0.1}, {@code [0:0:0:0:0:0:0:1]} is
 * {@code [::1]}, {@code [::ffff:127.0.0.1]} is {@code 127.0.0.1}), and the port appended as
 * {@code host:port} unless it is 80 or 443. Those two are the web's default ports, dropped
 * whatever the scheme: {@code http://example.org/} and {@code https://example.org/} are one host,
 * the one a server behind both ports is. No name is looked up: {@code localhost} and
 * {@code 127.0.0.1} are two hosts.
 *
 * <pre>
 *   http://Example.ORG./x        → example.org
 *   http://example.org:80/       → example.org
 *   https://example.org:443/     → example.org
 *   https://example.org:8443/    → example.org:8443
 *   http://bücher.example/       → xn--bcher-kva.example
 *   http://user:pw@a_b.example/  → a_b.example
 *   http://127.1:8080/           → 127.0.0.1:8080
 *   http://[0:0::1]:8080/        → [::1]:8080
 * </pre>
 *
 * <p>A configured <em>limit key</em> ({@link #limitKey}) is a host ({@code example.org}: the host
 * on every port), a host with port ({@code example.org:8080}: that port alone), or a
 * <em>group</em> {@code *.example.org}, which covers every host below {@code example.org} at any
 * depth and on any port ({@code a.example.org}, {@code x.y.example.org:8080}) but not
 * {@code example.org} itself. A limit key is normalised by the same function as a URI, so
 * {@code example.org:80}, {@code Example.org.:443} and {@code http://example.org/} name one host;
 * written with port 80 or 443, a key names the host on those ports only, not on
 * {@code example.org:8080}. A key that could never match a request (a scheme or path in it, a
 * port out of range, an empty label, a malformed IPv6 address, a character no host name has) is
 * refused with a message that names it and says why. Every message shows the text it was given on
 * one line, its control characters escaped by {@link Redaction#printable}: a host decoded from
 * {@code %0a} is shown {@code \n}.
 *
 * <p>Host names may contain letters, digits, {@code '-'} and {@code '_'} in labels of 1 to 63
 * characters, at most 253 characters in all. Leading and trailing hyphens are tolerated, as
 * browsers do. Internationalised names are converted by {@link IDN#toASCII} with
 * {@link IDN#ALLOW_UNASSIGNED}, i.e. IDNA 2003: emoji names work, but {@code ß} maps to
 * {@code ss} where IDNA 2008 and current browsers keep it ({@code xn--zca}).
 */
final class HostKey {

    private static final int MAX_NAME_LENGTH = 253;
    private static final int MAX_LABEL_LENGTH = 63;

    // Outcomes of scanning a name, see scan().
    private static final int LOWER = 0;
    private static final int NEEDS_LOWERING = 1;
    private static final int NON_ASCII = 2;
    private static final int INVALID = 3;

    /**
     * A configured key normalised: the engine's key it names, and whether it names the host on
     * every port (written without port, or a group) or on the key's port alone.
     */
    record LimitKey(String key, boolean everyPort) {}

    private HostKey() {}

    /**
     * The engine's key of a host and port, the one function every key is made by: the host
     * normalised (see the class comment), then {@code ":" + port} unless the port is -1 (none),
     * 80 or 443. Returns {@code null} when {@code host} is not a host name, an IPv4 address or an
     * IPv6 literal in brackets; {@link #hostProblem} says why.
     */
    static @Nullable String key(String host, int port) {
        String canonical = canonicalHost(host);
        if (canonical == null) {
            return null;
        }
        return port == -1 || port == 80 || port == 443 ? canonical : canonical + ':' + port;
    }

    /**
     * The normalised key of a URI's host: "host", or "host:port" when the port is not 80 or 443.
     *
     * <p>Java's URI parses an authority it cannot read as host and port (underscores, non-ASCII
     * names, short IPv4 forms, ports out of range) as registry-based, with no host; such
     * authorities are parsed here from {@link URI#getRawAuthority()}: user info is dropped,
     * {@code [ipv6]:port} is understood and percent-escapes in the host name are decoded as UTF-8.
     *
     * @throws IllegalArgumentException naming the URI (with any user info masked) when it has no
     *     host, the host is not a valid name, or the port is not 1 to 65535
     */
    static String of(URI uri) {
        String rawHost;
        int port;
        String host = uri.getHost();
        if (host != null && !host.isEmpty()) {
            // Server-based authority: Java has checked the host's syntax; it is ASCII.
            rawHost = host;
            port = uri.getPort();
        } else {
            // Registry-based (underscores, non-ASCII, bad port, ...) or no authority at all.
            String authority = uri.getRawAuthority();
            if (authority == null) {
                throw noHost(uri);
            }
            int hostStart = authority.lastIndexOf('@') + 1;
            int hostEnd;
            if (hostStart < authority.length() && authority.charAt(hostStart) == '[') {
                int close = authority.indexOf(']', hostStart);
                hostEnd = close < 0 ? authority.length() : close + 1;
                rawHost = authority.substring(hostStart, hostEnd);
            } else {
                int colon = authority.indexOf(':', hostStart);
                hostEnd = colon < 0 ? authority.length() : colon;
                String escaped = authority.substring(hostStart, hostEnd);
                if (escaped.isEmpty()) {
                    throw noHost(uri);
                }
                String decoded = escaped.indexOf('%') < 0 ? escaped : percentDecode(escaped);
                if (decoded == null) {
                    throw invalidHost(uri, escaped, "it has malformed percent-encoding");
                }
                rawHost = decoded;
            }
            if (hostEnd == authority.length()) {
                port = -1;
            } else if (authority.charAt(hostEnd) != ':') {
                throw invalidHost(uri, authority.substring(hostStart),
                        "expected ':' and a port after the host");
            } else if (hostEnd + 1 == authority.length()) {
                port = -1; // an empty port ("host:") means the default
            } else {
                port = parsePort(authority, hostEnd + 1);
                if (port < 0) {
                    throw invalidPort(uri);
                }
            }
        }
        if (port == 0 || port > 65535) {
            throw invalidPort(uri);
        }
        String key = key(rawHost, port);
        if (key == null) {
            throw invalidHost(uri, rawHost, hostProblem(rawHost));
        }
        return key;
    }

    /** The host name part of a key, without port: "example.org:8080" → "example.org", "[::1]:80" → "[::1]". */
    static String hostName(String key) {
        return key.substring(0, hostNameEnd(key));
    }

    /**
     * The engine's key that a configured limit key names (see {@link #limitKey}): "host",
     * "host:port" or "*.domain".
     *
     * @throws IllegalArgumentException naming the key and what is wrong with it
     */
    static String normaliseLimitKey(String key) {
        return limitKey(key).key();
    }

    /**
     * Normalises a configured limit key: "host" (on every port), "host:port" (port 1 to 65535;
     * that port alone, 80 and 443 being the default port of {@link #key}) or "*.domain" (a domain
     * name of at least two labels, not an IP address). Surrounding white space is ignored; the
     * host goes through {@link #key}, as a URI's does.
     *
     * @throws IllegalArgumentException naming the key and what is wrong with it
     */
    static LimitKey limitKey(String key) {
        String k = key.strip();
        if (k.isEmpty()) {
            throw badKey(key, "is empty: expected a host such as 'example.org', a host with port "
                    + "such as 'example.org:8080' or a group such as '*.example.org'");
        }
        if (k.contains("://")) {
            throw badKey(key, "has a scheme: expected a host without scheme or path, such as "
                    + "'example.org' or 'example.org:8080' (a key names the host for every scheme)");
        }
        if (k.indexOf('/') >= 0 || k.indexOf('@') >= 0 || k.indexOf('?') >= 0 || k.indexOf('#') >= 0) {
            throw badKey(key, "is not a host: expected a host name without scheme, user or path, "
                    + "such as 'example.org' or 'example.org:8080'");
        }
        if (k.indexOf('*') >= 0) {
            return new LimitKey(groupKey(key, k), true);
        }
        String rawHost;
        int portStart; // index of the ':' before the port, or -1
        if (k.charAt(0) == '[') {
            int close = k.indexOf(']');
            if (close < 0 || IpLiteral.ipv6(k.substring(0, close + 1)) == null) {
                throw badKey(key, "is not a host: expected an IPv6 address in brackets, such as '[::1]'");
            }
            rawHost = k.substring(0, close + 1);
            portStart = close + 1 == k.length() ? -1 : close + 1;
            if (portStart >= 0 && k.charAt(portStart) != ':') {
                throw badKey(key, "is not a host: expected ':' and a port after ']'");
            }
        } else {
            if (k.indexOf(':') != k.lastIndexOf(':') && IpLiteral.ipv6("[" + k + "]") != null) {
                throw badKey(key, "is not a host: an IPv6 address is written in brackets, such as '["
                        + k + "]'");
            }
            portStart = k.indexOf(':');
            rawHost = portStart < 0 ? k : k.substring(0, portStart);
        }
        int port = -1;
        if (portStart >= 0) {
            port = parsePort(k, portStart + 1);
            if (port < 1) {
                throw badKey(key, "has an invalid port: expected 1 to 65535");
            }
        }
        String normalised = key(rawHost, port);
        if (normalised == null) {
            throw badKey(key, "is not a host: " + hostProblem(rawHost) + "; expected a host such "
                    + "as 'example.org', a host with port such as 'example.org:8080' or a group "
                    + "such as '*.example.org'");
        }
        return new LimitKey(normalised, portStart < 0);
    }

    /** The normalised "*.domain" of a key that has a '*' in it, {@code k} stripped. */
    private static String groupKey(String key, String k) {
        if (!k.startsWith("*.") || k.indexOf('*', 1) >= 0) {
            throw badKey(key, "is not a group: '*' may only appear as a leading '*.' followed by "
                    + "a domain name, such as '*.example.org'");
        }
        String domain = k.substring(2);
        if (domain.indexOf(':') >= 0) {
            throw badKey(key, "is not a domain: expected '*.' followed by a domain name without "
                    + "port (a group covers every port)");
        }
        String name = normaliseName(domain);
        if (name == null || name.indexOf('.') < 0) {
            String why = name == null && !domain.isEmpty() ? " (" + nameProblem(domain) + ")" : "";
            throw badKey(key, "is not a domain: expected '*.' followed by a domain name of at "
                    + "least two labels, such as '*.example.org'" + why);
        }
        String address = IpLiteral.ipv4(name);
        if (address != null) {
            throw badKey(key, "is not a domain: '" + domain + "' is the IP address " + address
                    + ", and an address has no hosts under it; expected '*.' followed by a domain name, "
                    + "such as '*.example.org'");
        }
        return "*." + name;
    }

    /** Whether a normalised limit key is a group ("*.domain"). */
    static boolean isGroup(String normalisedKey) {
        return normalisedKey.startsWith("*.");
    }

    /**
     * Whether a host key (as returned by {@link #of}) belongs to a group key "*.domain": its host
     * name ends with "." + domain. The port is ignored; the apex (domain itself) does not belong,
     * nor does an IP address (a group's domain is never one, see {@link #limitKey}).
     *
     * @throws IllegalArgumentException if {@code groupKey} is not a group
     */
    static boolean inGroup(String hostKey, String groupKey) {
        if (!isGroup(groupKey)) {
            throw new IllegalArgumentException(
                    Redaction.printable("'" + groupKey + "' is not a group key ('*.domain')"));
        }
        int end = hostNameEnd(hostKey);
        int suffixLength = groupKey.length() - 1; // ".domain"
        return end > suffixLength && hostKey.regionMatches(end - suffixLength, groupKey, 1, suffixLength);
    }

    // ---------------------------------------------------------------------------------------

    /**
     * Where the host name of a key ends: at the ']' of an IPv6 literal and one past it, else at
     * the first ':' (before the port), else at the end. "example.org:8080" → 11, "[::1]:80" → 5.
     */
    static int hostNameEnd(String key) {
        if (key.startsWith("[")) {
            int close = key.indexOf(']');
            return close < 0 ? key.length() : close + 1;
        }
        int colon = key.indexOf(':');
        return colon < 0 ? key.length() : colon;
    }

    /**
     * The normalised form of a host name (not an IPv6 literal), or null if it is not valid. Plain
     * lower-case ASCII without trailing dot, the common case, is returned as is without copying.
     */
    private static @Nullable String normaliseName(String name) {
        String s = name;
        int outcome = scan(s);
        if (outcome == NON_ASCII) {
            try {
                s = IDN.toASCII(s, IDN.ALLOW_UNASSIGNED);
            } catch (IllegalArgumentException e) {
                return null;
            }
            outcome = scan(s);
        }
        if (outcome == LOWER) {
            return s.charAt(s.length() - 1) == '.' ? s.substring(0, s.length() - 1) : s;
        }
        if (outcome == NEEDS_LOWERING) {
            int end = s.charAt(s.length() - 1) == '.' ? s.length() - 1 : s.length();
            return s.substring(0, end).toLowerCase(Locale.ROOT);
        }
        return null;
    }

    /** Checks a host name's syntax in one pass, allowing one trailing dot. */
    private static int scan(String s) {
        int end = s.length();
        if (end > 0 && s.charAt(end - 1) == '.') {
            end--;
        }
        if (end == 0) {
            return INVALID;
        }
        boolean upper = false;
        int labelStart = 0;
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
                continue;
            }
            if (c == '.') {
                if (i == labelStart || i - labelStart > MAX_LABEL_LENGTH) {
                    return INVALID;
                }
                labelStart = i + 1;
            } else if (c >= 'A' && c <= 'Z') {
                upper = true;
            } else if (c >= 0x80) {
                return NON_ASCII;
            } else {
                return INVALID;
            }
        }
        if (end == labelStart || end - labelStart > MAX_LABEL_LENGTH || end > MAX_NAME_LENGTH) {
            return INVALID;
        }
        return upper ? NEEDS_LOWERING : LOWER;
    }

    /** Why {@link #normaliseName} rejects a name, for error messages. */
    private static String nameProblem(String name) {
        String s = name;
        if (scan(s) == NON_ASCII) {
            try {
                s = IDN.toASCII(s, IDN.ALLOW_UNASSIGNED);
            } catch (IllegalArgumentException e) {
                return "'" + name + "' is not a valid international domain name (" + e.getMessage() + ")";
            }
        }
        String body = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        if (body.isEmpty()) {
            return "the host name is empty";
        }
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 0x80) && c != '-' && c != '_' && c != '.') {
                return "'" + name + "' contains '" + c + "', but a host name may only contain letters, "
                        + "digits, '-', '_' and '.'";
            }
        }
        if (body.startsWith(".") || body.endsWith(".") || body.contains("..")) {
            return "'" + name + "' has an empty label";
        }
        for (String label : body.split("\\.")) {
            if (label.length() > MAX_LABEL_LENGTH) {
                return "'" + name + "' has a label longer than " + MAX_LABEL_LENGTH + " characters";
            }
        }
        return "'" + name + "' is longer than " + MAX_NAME_LENGTH + " characters";
    }

    /**
     * The canonical form of a host: an IPv6 literal in brackets or an IPv4 address as
     * {@link IpLiteral} writes it, else a name normalised, or null when it is none of these.
     */
    private static @Nullable String canonicalHost(String host) {
        if (host.startsWith("[")) {
            return IpLiteral.ipv6(host);
        }
        String name = normaliseName(host);
        if (name == null) {
            return null;
        }
        String address = IpLiteral.ipv4(name);
        return address != null ? address : name;
    }

    /** Why {@link #canonicalHost} rejects a host, for error messages. */
    private static String hostProblem(String host) {
        return host.startsWith("[") ? "it is not a valid IPv6 address in brackets" : nameProblem(host);
    }

    /** Port digits from {@code start} to the end of {@code s}: 0 to 65535, or -1 if not valid. */
    private static int parsePort(String s, int start) {
        if (start >= s.length()) {
            return -1;
        }
        int port = 0;
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            port = port * 10 + (c - '0');
            if (port > 65535) {
                return -1;
            }
        }
        return port;
    }

    /** Decodes %XX escapes as UTF-8, or null if they are malformed. */
    private static @Nullable String percentDecode(String s) {
        byte[] in = s.getBytes(StandardCharsets.UTF_8); // escapes stay ASCII, other text UTF-8
        byte[] out = new byte[in.length];
        int n = 0;
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '%') {
                int hi = i + 2 < in.length ? Character.digit(in[i + 1], 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(in[i + 2], 16);
                if (lo < 0) {
                    return null;
                }
                out[n++] = (byte) (hi * 16 + lo);
                i += 2;
            } else {
                out[n++] = in[i];
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(out, 0, n))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static IllegalArgumentException noHost(URI uri) {
        return new IllegalArgumentException(Redaction.printable("URI '" + masked(uri) + "' has no host"));
    }

    private static IllegalArgumentException invalidHost(URI uri, String host, String problem) {
        return new IllegalArgumentException(Redaction.printable(
                "URI '" + masked(uri) + "' has an invalid host '" + host + "': " + problem));
    }

    private static IllegalArgumentException invalidPort(URI uri) {
        return new IllegalArgumentException(Redaction.printable(
                "URI '" + masked(uri) + "' has an invalid port: expected 1 to 65535"));
    }

    private static IllegalArgumentException badKey(String key, String problem) {
        return new IllegalArgumentException(Redaction.printable("host limit '" + key + "' " + problem));
    }

    /** The URI as a string with any user info (which may hold a password) replaced by "***". */
    private static String masked(URI uri) {
        return Redaction.userInfo(uri.toString());
    }
}
