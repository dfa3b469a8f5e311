package io.hostpace.cli;

import io.hostpace.Redaction;
import org.jspecify.annotations.Nullable;

/**
 * What {@code hostpace fetch} prints for one input URL, a JSON object on one line:
 * {@code {"url":"https://a.test/","status":200,"attempts":2,"elapsedMs":1310,"waitedMs":1002,"bytes":512}}.
 * {@code status} is absent when no HTTP answer came, and then {@code error} says why. The user
 * info of a URL, which can hold a password, is shown as {@code ***} in both.
 */
record FetchRecord(String url, int status, int attempts, long elapsedMs, long waitedMs, long bytes, @Nullable String error) {

  static final int NO_ANSWER = -1;

  boolean answered() {
    return status != NO_ANSWER;
  }

  String toJson() {
    Json json = new Json().field("url", Redaction.userInfo(url));
    if (answered()) {
      json.field("status", status);
    }
    json.field("attempts", attempts).field("elapsedMs", elapsedMs).field("waitedMs", waitedMs).field("bytes", bytes);
    if (error != null) {
      json.field("error", Redaction.userInfo(error));
    }
    return json.toString();
  }
}
