package io.hostpace.simulator;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Iterator;
import java.util.Set;

/**
 * The simulator's JSON: {@link #MAPPER} writes both kinds of result, and reads both kinds of
 * scenario. What the scenario readers share: the JSON they accept ({@code //} comments, no duplicate keys,
 * nothing after the object), the checks of a field's presence and shape, and the readers of its
 * values (counts, numbers, seconds, milliseconds, flags), each failing with a
 * {@link ScenarioException} that names the field's path.
 */
final class ScenarioJson {

  static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private ScenarioJson() {}

  /**
   * The scenario {@code text} as a JSON object with only the {@code allowed} fields; refused
   * naming the line and column of bad JSON, or saying it expected {@code shape}.
   */
  static JsonNode root(String text, String shape, Set<String> allowed, String what) {
    JsonNode root;
    try {
      root = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new ScenarioException("", "scenario is not JSON: " + e.getOriginalMessage()
          + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    }
    if (root == null || !root.isObject()) {
      throw new ScenarioException("", "scenario: expected a JSON object " + shape);
    }
    onlyFields(root, "", allowed, what);
    return root;
  }

  static JsonNode required(JsonNode object, String field, String path, String what) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      throw new ScenarioException(path.isEmpty() ? field : path + "." + field, "required: " + what);
    }
    return value;
  }

  static void onlyFields(JsonNode object, String path, Set<String> allowed, String what) {
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw new ScenarioException(path.isEmpty() ? name : path + "." + name,
            "unknown field of " + what + ": expected one of " + String.join(", ", allowed.stream().sorted().toList()));
      }
    }
  }

  static JsonNode object(JsonNode node, String path, String shape) {
    if (!node.isObject()) {
      throw new ScenarioException(path, "expected an object " + shape + ", got " + brief(node));
    }
    return node;
  }

  static JsonNode list(JsonNode node, String path, String what) {
    if (!node.isArray()) {
      throw new ScenarioException(path, "expected " + what + " [...], got " + brief(node));
    }
    return node;
  }

  static String text(JsonNode node, String path) {
    if (!node.isTextual() || node.asText().isEmpty()) {
      throw new ScenarioException(path, "expected a non-empty string, got " + brief(node));
    }
    return node.asText();
  }

  static String brief(JsonNode node) {
    String text = node.toString();
    return text.length() > 60 ? text.substring(0, 57) + "..." : text;
  }

  /** A whole number, any sign. */
  static long whole(JsonNode node, String path) {
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw new ScenarioException(path, "expected a whole number, got " + brief(node));
    }
    return node.asLong();
  }

  static int count(JsonNode node, String path, int least) {
    if (!node.isIntegralNumber() || !node.canConvertToInt() || node.asInt() < least) {
      throw new ScenarioException(path, "expected a whole number of " + least + " or more, got " + brief(node));
    }
    return node.asInt();
  }

  static double number(JsonNode node, String path, double least) {
    if (!node.isNumber() || !Double.isFinite(node.asDouble()) || node.asDouble() < least) {
      throw new ScenarioException(path, "expected a number of " + plain(least) + " or more, got " + brief(node));
    }
    return node.asDouble();
  }

  /** A number above 0, at most a million. */
  static double positive(JsonNode node, String path) {
    if (!node.isNumber() || !Double.isFinite(node.asDouble()) || node.asDouble() <= 0 || node.asDouble() > 1e6) {
      throw new ScenarioException(path, "expected a positive number (at most 1000000), got " + brief(node));
    }
    return node.asDouble();
  }

  /** The boolean {@code field} of {@code node}, false when absent. */
  static boolean flag(JsonNode node, String field, String path) {
    if (!node.has(field)) {
      return false;
    }
    if (!node.get(field).isBoolean()) {
      throw new ScenarioException(path + "." + field, "expected true or false, got " + brief(node.get(field)));
    }
    return node.get(field).asBoolean();
  }

  /**
   * Seconds as nanoseconds; positive when {@code positive}, else 0 or more. Checked once rounded to
   * the nanosecond, so that a positive one under half a nanosecond is not 0.
   */
  static long seconds(JsonNode node, String path, boolean positive) {
    if (!node.isNumber() || !Double.isFinite(node.asDouble()) || node.asDouble() < 0
        || (positive && node.asDouble() <= 0) || node.asDouble() > 1e7) {
      throw new ScenarioException(path, "expected a number of seconds " + (positive ? "above 0" : "of 0 or more")
          + " (at most 10000000), got " + brief(node));
    }
    long nanos = Math.round(node.asDouble() * 1e9);
    if (positive && nanos == 0) {
      throw new ScenarioException(path, "expected a number of seconds above 0 (at most 10000000), got " + brief(node)
          + ", which is 0 to the nanosecond");
    }
    return nanos;
  }

  /**
   * Milliseconds, 0 to {@code most}, as nanoseconds. Each kind of scenario has its own most: a
   * pacing replay adds latencies up, a timeout replay only compares budgets.
   */
  static long ms(JsonNode node, String path, double most) {
    if (!node.isNumber() || !Double.isFinite(node.asDouble()) || node.asDouble() < 0 || node.asDouble() > most) {
      throw new ScenarioException(path, "expected a number of ms of 0 or more, got " + brief(node));
    }
    return Math.round(node.asDouble() * 1e6);
  }

  /** {@code 1} for 1.0, {@code 0.5} for 0.5. */
  private static String plain(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
