package io.hostpace.jena;

import io.hostpace.CallContext;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.jena.http.sys.HttpRequestModifier;
import org.apache.jena.http.sys.RegistryRequestModifier;
import org.jspecify.annotations.Nullable;

/**
 * Carries a query's {@link CallContext} from its Jena context to the {@link InstalledHttpClient}
 * that sends its requests, by marking each request with a header the client takes off again.
 *
 * <p>Why a mark: Jena chooses a query's {@code HttpClient} when the query execution is built,
 * before any request exists, and the one place where a query's Jena context meets its requests is
 * {@code HttpLib.modifyByService(serviceURL, context, params, headers)}, which every
 * {@code QueryExecHTTP} and {@code UpdateExecHTTP} calls just before it builds a request, for
 * direct queries and for {@code SERVICE} alike. There Jena asks the context's
 * {@code ARQ.httpRegistryRequestModifer} (or, when the context has none, the global
 * {@link RegistryRequestModifier}) for the modifier of the service URL. This class stands in that
 * place: it returns the modifier the registry underneath it has for the URL, followed by one that
 * adds {@code Hostpace-Call-Context: <id>} to the request's headers. The id names this marker in a
 * weak table, so a mark resolves to the context for as long as some Jena context holds the marker,
 * on whatever thread the request is sent (Jena's answer to a 401 is sent from another), and a
 * marker that no context holds any more costs nothing.
 *
 * <p>When a context also has a plain {@code ARQ.httpRequestModifer}, Jena uses that one and asks
 * no registry; {@link HostpaceJena#set} then puts a {@link Marking} modifier in its place, which
 * runs it and marks the request.
 *
 * <p>Requests are marked only while an installation is active, and not when the service URL's
 * client in {@code RegistryHttpClient}, or else Jena's default, is not an installed one, so that
 * the mark does not reach a server through a client that would not take it off. (A client given
 * to a builder explicitly cannot be seen from here: give it {@code Installation.pace(client)}.)
 */
final class CallContextMarker extends RegistryRequestModifier {

  /** The header a marked request carries; the installed client removes it before sending. */
  static final String HEADER = "Hostpace-Call-Context";

  private static final AtomicLong IDS = new AtomicLong();
  /**
   * Live markers' contexts, keyed by the marker's own {@link #id} instance: the entry lasts as
   * long as the marker does, since nothing else holds that string. Guarded by its own lock.
   */
  private static final Map<String, CallContext> CONTEXTS = Collections.synchronizedMap(new WeakHashMap<>());

  private final String id;
  private final CallContext callContext;
  /** The registry this marker stands in front of; {@code null} for the global one, looked up on each use. */
  private final @Nullable RegistryRequestModifier underneath;

  CallContextMarker(CallContext callContext, @Nullable RegistryRequestModifier underneath) {
    this.id = Long.toString(IDS.incrementAndGet());
    this.callContext = callContext;
    this.underneath = underneath;
    CONTEXTS.put(id, callContext);
  }

  /** The context a request marked {@code mark} carries, or {@code null} for a mark no live marker made. */
  static @Nullable CallContext contextFor(String mark) {
    return CONTEXTS.get(mark);
  }

  CallContext callContext() {
    return callContext;
  }

  @Nullable RegistryRequestModifier underneath() {
    return underneath;
  }

  /**
   * Marks {@code headers} while an installation is active that paces {@code serviceURL}'s
   * requests; {@code serviceURL} is {@code null} when Jena does not say it.
   */
  void mark(@Nullable String serviceURL, Map<String, String> headers) {
    HostpaceJena.Installation installation = HostpaceJena.installation();
    if (installation != null && (serviceURL == null || installation.paces(serviceURL))) {
      headers.put(HEADER, id);
    }
  }

  private RegistryRequestModifier registry() {
    return underneath != null ? underneath : RegistryRequestModifier.get();
  }

  /** The registry's modifier for {@code serviceURL}, if any, and then the mark. */
  @Override
  public HttpRequestModifier find(String serviceURL) {
    HttpRequestModifier theirs = registry().find(serviceURL);
    return (params, headers) -> {
      if (theirs != null) {
        theirs.modify(params, headers);
      }
      mark(serviceURL, headers);
    };
  }

  // What is registered here is registered in the registry underneath: this one only marks.

  @Override
  public void add(String service, HttpRequestModifier modifier) {
    registry().add(service, modifier);
  }

  @Override
  public void addPrefix(String service, HttpRequestModifier modifier) {
    registry().addPrefix(service, modifier);
  }

  @Override
  public void remove(String service) {
    registry().remove(service);
  }

  @Override
  public void clear() {
    registry().clear();
  }

  @Override
  public String toString() {
    return "CallContextMarker{id=" + id + ", " + callContext + "}";
  }

  /** A context's own {@code ARQ.httpRequestModifer}, followed by the mark. */
  record Marking(HttpRequestModifier own, CallContextMarker marker) implements HttpRequestModifier {
    @Override
    public void modify(org.apache.jena.sparql.exec.http.Params params, Map<String, String> headers) {
      own.modify(params, headers);
      marker.mark(null, headers);
    }
  }
}
