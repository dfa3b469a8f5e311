package io.hostpace.cli;

import io.hostpace.internal.Redaction;
import org.jspecify.annotations.Nullable;

/**
 * What {@code hostpace fetch} prints for one input URL, a JSON object on one line:
 * {@code {"url":"https://a.test/","status":200,"attempts":2,"elapsedMs":1310,"waitedMs":1002,"bytes":512}}.
 * {@code error} says why an exchange did not complete: with no {@code status} when no HTTP answer
 * came, with the {@code status} of the headers when the body was cut (its deadline passed, or it
 * grew past {@code --max-body}, SPEC T7), and then {@code bytes} counts what of it had come:
 * {@code {"url":"http://a.test/stall","status":200,"attempts":1,"elapsedMs":2004,"waitedMs":0,"bytes":0,
 * "error":"timeout: the body was not complete within --timeout 2 s: 0 of 1048576 bytes had come"}}.
 * The user info of a URL, which can hold a password, is shown as {@code ***} in both.
 * With {@code --save DIR}, a body read whole is kept in a file of DIR, which {@code file} names
 * ({@link SavedName}): {@code {"url":"https://a.test/x?y=1","status":200,...,"bytes":512,
 * "file":"a.test_x_y=1_b9250fac69e7"}}; a body cut has no file.
 */
record FetchRecord(String url, int status, int attempts, long elapsedMs, long waitedMs, long bytes,
    @Nullable String file, @Nullable String error) {

  static final int NO_ANSWER = -1;

  /** A record with no saved body. */
  FetchRecord(String url, int status, int attempts, long elapsedMs, long waitedMs, long bytes, @Nullable String error) {
    this(url, status, attempts, elapsedMs, waitedMs, bytes, null, error);
  }

  /** The server answered with a status (its body may still have been cut). */
  boolean answered() {
    return status != NO_ANSWER;
  }

  /** The exchange completed, body and all: what exit status 0 asks of every URL. */
  boolean complete() {
    return error == null;
  }

  String toJson() {
    Json json = new Json().field("url", Redaction.userInfo(url));
    if (answered()) {
      json.field("status", status);
    }
    json.field("attempts", attempts).field("elapsedMs", elapsedMs).field("waitedMs", waitedMs).field("bytes", bytes);
    if (file != null) {
      json.field("file", file);
    }
    if (error != null) {
      json.field("error", Redaction.userInfo(error));
    }
    return json.toString();
  }
}
