package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.HostpaceListener;
import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import java.io.IOException;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.jena.http.HttpEnv;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.apache.jena.rdf.model.Property;
import org.apache.jena.system.Txn;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the live tests share: small generated datasets, endpoints on 127.0.0.1 that refuse as the
 * seed's hosts do, an engine whose events are counted per host, and the closing of all of it
 * after each test, the installation first, so that Jena's global HTTP set-up is as it was.
 */
abstract class LiveJenaTest {

  static final String EX = "http://example.org/";

  private final Deque<AutoCloseable> open = new ArrayDeque<>();
  private @Nullable HttpClient defaultBefore;
  /** What the engine of {@link #install} decided, per host. */
  final Events events = new Events();

  @BeforeEach
  void rememberJenasDefault() {
    defaultBefore = HttpEnv.getDftHttpClient();
  }

  @AfterEach
  void closeEverything() throws Exception {
    while (!open.isEmpty()) {
      open.pop().close();
    }
    assertThat(HttpEnv.getDftHttpClient()).as("Jena's default client after the test").isSameAs(defaultBefore);
    assertThat(HostpaceJena.installation()).as("the installation after the test").isNull();
  }

  /** {@code closeable}, closed after the test, in the reverse order of opening. */
  <T extends AutoCloseable> T closeAfter(T closeable) {
    open.push(closeable);
    return closeable;
  }

  GatedEndpoint endpoint(Dataset dataset, Gate gate) {
    return closeAfter(GatedEndpoint.start(dataset, gate));
  }

  /** The seed's QLever: one request a second, the rest refused with a 429 and no Retry-After. */
  static Gate qleverLike() {
    return Gate.oneEvery(Duration.ofSeconds(1));
  }

  /**
   * The seed's KGF: four requests at once, the rest refused with a 429 and {@code Retry-After: 1};
   * each admitted request takes {@code 300 ms}, as a real query does, so that requests overlap.
   */
  static HeldGate kgfLike() {
    return new HeldGate(Gate.concurrent(4, Duration.ofSeconds(1)), Duration.ofMillis(300));
  }

  /** Installs Hostpace with an engine from {@code builder}, whose events {@link #events} counts. */
  HostpaceJena.Installation install(Hostpace.Builder builder) {
    return closeAfter(HostpaceJena.install(builder.addListener(events).build()));
  }

  /** {@code ex:person<i> ex:name "Person <i>"} for {@code i} below {@code count}. */
  static Dataset people(int count) {
    return dataset(count, "name", "Person ");
  }

  /** {@code ex:person<i> ex:livesIn "City <i>"} for {@code i} below {@code count}. */
  static Dataset homes(int count) {
    return dataset(count, "livesIn", "City ");
  }

  private static Dataset dataset(int count, String property, String valuePrefix) {
    Model model = ModelFactory.createDefaultModel();
    Property p = model.createProperty(EX + property);
    for (int i = 0; i < count; i++) {
      model.createResource(EX + "person" + i).addProperty(p, valuePrefix + i);
    }
    Dataset dataset = DatasetFactory.createTxnMem();
    Txn.executeWrite(dataset, () -> dataset.getDefaultModel().add(model));
    return dataset;
  }

  /** A query for the name of {@code ex:person<i>}. */
  static String nameOf(int i) {
    return "PREFIX ex: <" + EX + "> SELECT ?name { ex:person" + i + " ex:name ?name }";
  }

  /**
   * A local query with one {@code SERVICE} request to {@code endpoint} for each of the first
   * {@code count} people, one after another, as Jena substitutes each row of the {@code VALUES}.
   */
  static String namesThroughService(URI endpoint, int count) {
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < count; i++) {
      values.append(" ex:person").append(i);
    }
    return "PREFIX ex: <" + EX + "> SELECT ?p ?name { VALUES ?p {" + values + " } "
        + "SERVICE <" + endpoint + "> { ?p ex:name ?name } } ORDER BY ?p";
  }

  /** Counts the engine's decisions per host key. */
  static final class Events implements HostpaceListener {
    private final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();

    @Override
    public void onEvent(HostpaceEvent event) {
      if (event instanceof HostpaceEvent.Started) {
        started.computeIfAbsent(event.key(), k -> new AtomicInteger()).incrementAndGet();
      } else if (event instanceof HostpaceEvent.Refused) {
        refused.computeIfAbsent(event.key(), k -> new AtomicInteger()).incrementAndGet();
      }
    }

    /** Attempts the engine started to {@code hostKey}. */
    int started(String hostKey) {
      AtomicInteger count = started.get(hostKey);
      return count == null ? 0 : count.get();
    }

    /** Refusals the engine heard from {@code hostKey}. */
    int refused(String hostKey) {
      AtomicInteger count = refused.get(hostKey);
      return count == null ? 0 : count.get();
    }
  }

  /**
   * A client of the caller's own, as one registers with Jena for a proxy or credentials; it
   * counts the requests it sends (the JDK asks its proxy selector once for each).
   */
  static final class CountingClient {
    final AtomicInteger sent = new AtomicInteger();
    final HttpClient client = HttpClient.newBuilder()
        .proxy(new ProxySelector() {
          @Override
          public List<Proxy> select(URI uri) {
            sent.incrementAndGet();
            return List.of(Proxy.NO_PROXY);
          }

          @Override
          public void connectFailed(URI uri, SocketAddress address, IOException failure) {}
        })
        .build();
  }

  /**
   * A gate in front of another that holds each admitted request for {@code hold} before it is
   * served, as a slow query would, and counts how many it holds at once: the server's own view
   * of how many requests were in flight.
   */
  static final class HeldGate implements Gate {
    private final Gate gate;
    private final long holdMillis;
    private final AtomicInteger holding = new AtomicInteger();
    private final AtomicInteger mostHeld = new AtomicInteger();

    HeldGate(Gate gate, Duration hold) {
      this.gate = gate;
      this.holdMillis = hold.toMillis();
    }

    @Override
    public Admission admit(long nowNanos) {
      Admission admission = gate.admit(nowNanos);
      if (admission.admitted()) {
        mostHeld.accumulateAndGet(holding.incrementAndGet(), Math::max);
        try {
          Thread.sleep(holdMillis); // the server is busy with it; the client still waits for its answer
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          holding.decrementAndGet();
        }
      }
      return admission;
    }

    @Override
    public void release() {
      gate.release();
    }

    /** The most requests held at once. */
    int mostHeld() {
      return mostHeld.get();
    }
  }
}
