package io.hostpace.jena;

import java.lang.reflect.Field;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.jena.atlas.lib.Trie;
import org.apache.jena.http.RegistryHttpClient;
import org.apache.jena.http.sys.AbstractRegistryWithPrefix;
import org.apache.jena.query.ARQ;
import org.jspecify.annotations.Nullable;

/**
 * What Jena's {@link RegistryHttpClient} holds, read and replaced entry by entry.
 *
 * <p>The registry can be added to and searched, but not listed, and the clients in it win over
 * Jena's default client for direct queries and over the query's context for {@code SERVICE}. To
 * pace the clients already registered, this reads its two private fields: {@code exactMap}, which
 * holds every key ({@code addPrefix} puts a prefix there too), and {@code trie}, which holds the
 * prefixes. It only reads them; it replaces entries through the registry's own {@code add} and
 * {@code addPrefix}. Jena 5.6.0 has these fields; if a later Jena has not, {@link #check()} says
 * so when Hostpace is installed, rather than leaving registered clients unpaced.
 */
final class ClientRegistry {

  private static final @Nullable Field EXACT;
  private static final @Nullable Field TRIE;
  private static final @Nullable RuntimeException UNREADABLE;

  static {
    Field exact = null;
    Field trie = null;
    RuntimeException unreadable = null;
    try {
      exact = AbstractRegistryWithPrefix.class.getDeclaredField("exactMap");
      trie = AbstractRegistryWithPrefix.class.getDeclaredField("trie");
      exact.setAccessible(true);
      trie.setAccessible(true);
    } catch (NoSuchFieldException | RuntimeException e) {
      unreadable = new IllegalStateException(
          "cannot list the clients in Jena's RegistryHttpClient (Jena " + ARQ.VERSION + "), so cannot pace them: "
              + e, e);
    }
    EXACT = exact;
    TRIE = trie;
    UNREADABLE = unreadable;
  }

  private ClientRegistry() {}

  /** One key of the registry and the client it gives. */
  record Entry(String key, HttpClient client, boolean prefix) {}

  /** Throws what stops this class reading the registry, if anything does. */
  static void check() {
    if (UNREADABLE != null) {
      throw UNREADABLE;
    }
  }

  /** Every key of the registry, with its client. */
  static List<Entry> entries(RegistryHttpClient registry) {
    check();
    Map<String, HttpClient> exact = exactMap(registry);
    Trie<HttpClient> prefixes = trie(registry);
    List<Entry> entries = new ArrayList<>();
    for (Map.Entry<String, HttpClient> entry : exact.entrySet()) {
      String key = entry.getKey();
      HttpClient client = entry.getValue();
      entries.add(new Entry(key, client, key.endsWith("/") && prefixes.get(key) == client));
    }
    return entries;
  }

  /** The client registered under exactly {@code key}, or {@code null}. */
  static @Nullable HttpClient at(RegistryHttpClient registry, String key) {
    check();
    return exactMap(registry).get(key);
  }

  /** Registers {@code client} under {@code entry}'s key, as a prefix if the entry is one. */
  static void put(RegistryHttpClient registry, Entry entry, HttpClient client) {
    if (entry.prefix()) {
      registry.addPrefix(entry.key(), client);
    } else {
      registry.add(entry.key(), client);
    }
  }

  /** {@code field} as the static block found it; if it found none, what stopped it. */
  private static Field found(@Nullable Field field) {
    if (field == null) {
      throw Objects.requireNonNull(UNREADABLE, "a field not found leaves the reason in UNREADABLE");
    }
    return field;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, HttpClient> exactMap(RegistryHttpClient registry) {
    try {
      return (Map<String, HttpClient>) found(EXACT).get(registry);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read Jena's RegistryHttpClient: " + e, e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Trie<HttpClient> trie(RegistryHttpClient registry) {
    try {
      return (Trie<HttpClient>) found(TRIE).get(registry);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read Jena's RegistryHttpClient: " + e, e);
    }
  }
}
