package io.hostpace.timeout;

/**
 * How one attempt ended, as an adapter reports it to a {@link TimeoutPolicy}.
 *
 * <p>The policy needs three things told apart: an <em>answer</em> (the endpoint is reachable;
 * only a successful one says how long the kind takes), <em>our own timeout</em> at the budget
 * (says only "longer than the budget"), and <em>unreachable</em> (no connection, or it broke
 * before the answer). An adapter maps its client's results so:
 *
 * <table>
 * <caption>From a client's result to an outcome</caption>
 * <tr><th>the attempt</th><th>outcome</th></tr>
 * <tr><td>status 1xx to 3xx</td><td>{@link #SUCCESS}</td></tr>
 * <tr><td>status 4xx (including a 429 refusal)</td><td>{@link #REJECTED}</td></tr>
 * <tr><td>status 504</td><td>{@link #SERVER_TIMEOUT}</td></tr>
 * <tr><td>any other 5xx</td><td>{@link #SERVER_ERROR}</td></tr>
 * <tr><td>our timeout fired while waiting for the answer ({@code HttpTimeoutException})</td>
 *     <td>{@link #TIMED_OUT}</td></tr>
 * <tr><td>connection refused, connect timeout ({@code HttpConnectTimeoutException}), reset before
 *     the answer, DNS failure ({@code UnknownHostException}), TLS failure
 *     ({@code SSLException})</td><td>{@link #UNREACHABLE}</td></tr>
 * </table>
 *
 * <p>{@link #ofStatus(int)} does the first four rows.
 */
public enum Outcome {
  /** An answer that is not an error: its duration is evidence of what the kind takes. */
  SUCCESS,
  /** A 4xx answer: the endpoint is reachable, but the answer says nothing of how long the kind takes. */
  REJECTED,
  /** A 5xx answer other than 504: the endpoint is reachable and failed. */
  SERVER_ERROR,
  /** A 504: the server (or a gateway in front of it) gave up on the query: the kind was too slow for it. */
  SERVER_TIMEOUT,
  /** Our own timeout at the budget: the kind took longer than the budget, and nothing more is known. */
  TIMED_OUT,
  /** No answer because the endpoint could not be reached: refused, reset, DNS, TLS, connect timeout. */
  UNREACHABLE;

  /** The outcome of an answer with this HTTP status. */
  public static Outcome ofStatus(int status) {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("HTTP status " + status + " is not one: expected 100 to 599");
    }
    if (status == 504) {
      return SERVER_TIMEOUT;
    }
    if (status >= 500) {
      return SERVER_ERROR;
    }
    return status >= 400 ? REJECTED : SUCCESS;
  }

  /** Whether the endpoint answered (any status), as opposed to our timeout or no connection. */
  public boolean isAnswer() {
    return this != TIMED_OUT && this != UNREACHABLE;
  }
}
