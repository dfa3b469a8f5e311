package io.hostpace.jena;

import io.hostpace.CallContext;
import io.hostpace.jdk.ForwardingHttpClient;
import io.hostpace.jdk.PacedHttpClient;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The {@link HttpClient} an {@link HostpaceJena.Installation} puts wherever Jena looks for one:
 * a {@link PacedHttpClient} whose context is chosen per request. A request that Jena built for a
 * query whose Jena context carries a {@link CallContext} is sent by the thread that built it, which
 * the {@link CallContextMarker} left that context on; this client takes it and sends the request
 * with it. A request without a mark goes with the paced client's own context.
 *
 * <p>Its configuration, WebSockets and lifecycle are the paced client's, and so its delegate's.
 *
 * <p>Immutable and thread-safe, as {@link PacedHttpClient} is.
 */
final class InstalledHttpClient extends ForwardingHttpClient {

  private final PacedHttpClient paced;

  InstalledHttpClient(PacedHttpClient paced) {
    super(paced);
    this.paced = paced;
  }

  /** The paced client that sends for this one. */
  PacedHttpClient paced() {
    return paced;
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    CallContext context = contextOf(request);
    return paced.withContext(context).send(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
    CallContext context = contextOf(request);
    return paced.withContext(context).sendAsync(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    CallContext context = contextOf(request);
    return paced.withContext(context).sendAsync(request, handler, pushPromiseHandler);
  }

  /** The context the thread's mark gives the request, or else the paced client's own. */
  private CallContext contextOf(HttpRequest request) {
    CallContext marked = CallContextMarker.takeFor(request.uri());
    return marked != null ? marked : paced.context();
  }

  @Override
  public String toString() {
    return "InstalledHttpClient{" + paced + "}";
  }
}
