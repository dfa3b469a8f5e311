package io.hostpace.proxy;

import io.hostpace.HostSnapshot;
import java.util.List;

/** The engine's hosts and groups as JSON, for {@code /hostpace/hosts}: one object per key, durations in seconds. */
final class HostsJson {

  private HostsJson() {}

  static String of(List<HostSnapshot> hosts) {
    StringBuilder json = new StringBuilder("[");
    for (int i = 0; i < hosts.size(); i++) {
      HostSnapshot host = hosts.get(i);
      json.append(i == 0 ? "\n  {" : ",\n  {")
          .append("\"key\": ").append(quoted(host.key()))
          .append(", \"group\": ").append(host.group())
          .append(", \"inFlight\": ").append(host.inFlight())
          .append(", \"waiting\": ").append(host.waiting())
          .append(", \"pausedForSeconds\": ").append(host.pausedFor().toNanos() / 1e9)
          .append(", \"intervalSeconds\": ").append(host.interval().toNanos() / 1e9)
          .append(", \"inFlightLimit\": ").append(host.inFlightLimit())
          .append(", \"starts\": ").append(host.starts())
          .append(", \"refusals\": ").append(host.refusals())
          .append(", \"retries\": ").append(host.retries())
          .append('}');
    }
    return json.append(hosts.isEmpty() ? "]\n" : "\n]\n").toString();
  }

  /** A JSON string: quotes, backslashes and control characters escaped. */
  static String quoted(String text) {
    StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        quoted.append('\\').append(c);
      } else if (c < 0x20) {
        quoted.append(String.format("\\u%04x", (int) c));
      } else {
        quoted.append(c);
      }
    }
    return quoted.append('"').toString();
  }
}
