package io.hostpace.testkit;

import io.hostpace.CallContext;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request a scenario asks an {@link AdapterUnderTest} to send through its client.
 *
 * @param method {@code GET} or {@code POST}
 * @param uri where to
 * @param body the body's bytes, or {@code null} for none; the array is the scenario's, do not change it
 * @param replayable whether the client is to be given the body as one it can produce again
 *     ({@code true}: a byte array, a string) or as one it can send only once ({@code false}: a
 *     stream), as the client expresses it (SPEC T4)
 * @param headers headers to send besides the client's own, such as a {@code User-Agent}
 * @param timeout the client's own per-attempt timeout (read or response timeout) for this
 *     request, or {@code null} for a client without one
 * @param deadline the most the call may take for its whole answer, body included (SPEC T7), as
 *     the client or its adapter expresses it (a call timeout, the request's timeout), or
 *     {@code null} for none
 * @param maxBodyBytes the most bytes of body the adapter is to accept before it fails the call
 *     (SPEC T7), for an adapter that caps the bodies it reads whole, or {@code null} for no cap
 * @param context the call's context, to be handed to the engine the client's own way
 *     (a tag, an attribute, an {@code HttpContext})
 */
public record TestRequest(
    String method,
    URI uri,
    byte @Nullable [] body,
    boolean replayable,
    Map<String, String> headers,
    @Nullable Duration timeout,
    @Nullable Duration deadline,
    @Nullable Long maxBodyBytes,
    CallContext context) {

  public TestRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    headers = Map.copyOf(headers);
    Objects.requireNonNull(context, "context");
  }

  /** A {@code GET} without a body, with the default context. */
  public static TestRequest get(URI uri) {
    return new TestRequest("GET", uri, null, true, Map.of(), null, null, null, CallContext.DEFAULT);
  }

  /** A {@code POST} of {@code body}, replayable, with the default context. */
  public static TestRequest post(URI uri, byte[] body) {
    return new TestRequest("POST", uri, body, true, Map.of(), null, null, null, CallContext.DEFAULT);
  }

  /** A {@code POST} of {@code body} as UTF-8, replayable, with the default context. */
  public static TestRequest post(URI uri, String body) {
    return post(uri, body.getBytes(StandardCharsets.UTF_8));
  }

  /** This request with its body given as one that can be sent only once. */
  public TestRequest oneShot() {
    return new TestRequest(method, uri, body, false, headers, timeout, deadline, maxBodyBytes, context);
  }

  /** This request with one more header. */
  public TestRequest header(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new TestRequest(method, uri, body, replayable, more, timeout, deadline, maxBodyBytes, context);
  }

  /** This request with the client's per-attempt timeout set. */
  public TestRequest timeout(Duration timeout) {
    return new TestRequest(method, uri, body, replayable, headers, timeout, deadline, maxBodyBytes, context);
  }

  /** This request with a deadline for its whole answer, body included. */
  public TestRequest deadline(Duration deadline) {
    return new TestRequest(method, uri, body, replayable, headers, timeout, deadline, maxBodyBytes, context);
  }

  /** This request with a cap on the bytes of body the adapter accepts. */
  public TestRequest maxBodyBytes(long maxBodyBytes) {
    return new TestRequest(method, uri, body, replayable, headers, timeout, deadline, maxBodyBytes, context);
  }

  /** This request with {@code context}. */
  public TestRequest context(CallContext context) {
    return new TestRequest(method, uri, body, replayable, headers, timeout, deadline, maxBodyBytes, context);
  }

  /** The body, or an empty array. */
  public byte[] bodyOrEmpty() {
    return body == null ? new byte[0] : body;
  }

  @Override
  public String toString() {
    return method + " " + uri + (body == null ? "" : " (" + body.length + " bytes, " + (replayable ? "replayable" : "one-shot") + ")");
  }
}
