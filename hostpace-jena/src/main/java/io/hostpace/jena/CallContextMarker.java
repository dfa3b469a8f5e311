package io.hostpace.jena;

import io.hostpace.CallContext;
import java.net.URI;
import java.util.Map;
import org.apache.jena.http.sys.HttpRequestModifier;
import org.apache.jena.http.sys.RegistryRequestModifier;
import org.jspecify.annotations.Nullable;

/**
 * Carries a query's {@link CallContext} from its Jena context to the {@link InstalledHttpClient}
 * that sends its request, by leaving it on the thread for the request Jena is about to send.
 *
 * <p>Why there: Jena chooses a query's {@code HttpClient} when the query execution is built,
 * before any request exists, and the one place where a query's Jena context meets its requests is
 * {@code HttpLib.modifyByService(serviceURL, context, params, headers)}, which every
 * {@code QueryExecHTTP} and {@code UpdateExecHTTP} calls just before it builds a request, for
 * direct queries and for {@code SERVICE} alike, and then sends the request on the same thread.
 * There Jena asks the context's {@code ARQ.httpRegistryRequestModifer} (or, when the context has
 * none, the global {@link RegistryRequestModifier}) for the modifier of the service URL. This
 * class stands in that place: it returns the modifier the registry underneath it has for the URL,
 * followed by one that leaves the context on the thread, for the service URL ({@link #mark}). The
 * next request the thread sends through an installed client takes it ({@link #takeFor}): as its
 * context if the request is for that service URL; either way it is gone after that one request.
 *
 * <p>Why not a header on the request, which would follow it to any thread: the client that sends
 * it may not be an installed one (a client given to a builder with {@code .httpClient(c)} cannot
 * be seen from here), and then the header would reach the server. A mark on the thread never
 * leaves the process. What it costs: a request Jena sends again from its own code after the first
 * (the answer to a 401 with a registered password) goes with the installed client's own context,
 * still paced.
 *
 * <p>A mark that a query's unpaced client never took would wait for the thread's next request,
 * which may be another query's, for the same endpoint, that gives no context. So the installation
 * puts a marker of its own, with no context, in Jena's global context while it is active: the
 * queries whose contexts are copies of it (every query that is not given one) pass it just before
 * their requests are built, and it takes any mark away. A query built with a context copied before
 * the installation, or with its own {@code ARQ.httpRequestModifer} and no call context, passes no
 * marker: after a query that gave an unpaced client a context, its request to the same endpoint
 * on the same thread may take that context (give such a query {@code Installation.pace(client)}).
 *
 * <p>When a context also has a plain {@code ARQ.httpRequestModifer}, Jena uses that one and asks
 * no registry; {@link HostpaceJena#set} then puts a {@link Marking} modifier in its place, which
 * runs it and marks the request.
 *
 * <p>Requests are marked only while an installation is active, and not when the service URL's
 * client in {@code RegistryHttpClient}, or else Jena's default, is not an installed one, so that
 * no mark waits on the thread for a client that would not take it.
 */
final class CallContextMarker extends RegistryRequestModifier {

  /** The mark this thread left for the next request it sends, if any: one per thread, owned by it. */
  private static final ThreadLocal<@Nullable Mark> MARKED = new ThreadLocal<>();

  /** A context left for the request to {@code serviceURL} (any URL when null) that the thread sends next. */
  private record Mark(@Nullable String serviceURL, CallContext callContext) {
    boolean isFor(URI uri) {
      return serviceURL == null || uri.toString().startsWith(serviceURL);
    }
  }

  /** The context it leaves on the thread; {@code null} for the installation's own, which leaves none and takes any away. */
  private final @Nullable CallContext callContext;
  /** The registry this marker stands in front of; {@code null} for the global one, looked up on each use. */
  private final @Nullable RegistryRequestModifier underneath;

  CallContextMarker(@Nullable CallContext callContext, @Nullable RegistryRequestModifier underneath) {
    this.callContext = callContext;
    this.underneath = underneath;
  }

  /**
   * The context this thread's mark gives the request to {@code uri} that the thread is sending,
   * or {@code null} when there is no mark or it is for another service; the mark is gone after.
   */
  static @Nullable CallContext takeFor(URI uri) {
    Mark mark = MARKED.get();
    if (mark == null) {
      return null;
    }
    MARKED.remove();
    return mark.isFor(uri) ? mark.callContext() : null;
  }

  @Nullable CallContext callContext() {
    return callContext;
  }

  @Nullable RegistryRequestModifier underneath() {
    return underneath;
  }

  /**
   * Leaves this marker's context on the thread for its next request while an installation is
   * active that paces {@code serviceURL}'s requests, and else takes any earlier mark away, so
   * that none waits for a request it was not made for; {@code serviceURL} is {@code null} when
   * Jena does not say it. The request's headers are not touched.
   */
  void mark(@Nullable String serviceURL) {
    HostpaceJena.Installation installation = HostpaceJena.installation();
    if (callContext != null && installation != null && (serviceURL == null || installation.paces(serviceURL))) {
      MARKED.set(new Mark(serviceURL, callContext));
    } else {
      MARKED.remove();
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
      mark(serviceURL);
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
    return "CallContextMarker{" + callContext + "}";
  }

  /** A context's own {@code ARQ.httpRequestModifer}, followed by the mark. */
  record Marking(HttpRequestModifier own, CallContextMarker marker) implements HttpRequestModifier {
    @Override
    public void modify(org.apache.jena.sparql.exec.http.Params params, Map<String, String> headers) {
      own.modify(params, headers);
      marker.mark(null);
    }
  }
}
