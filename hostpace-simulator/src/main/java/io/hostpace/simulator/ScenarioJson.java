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
 * What both scenario readers share: the JSON they accept ({@code //} comments, no duplicate keys,
 * nothing after the object) and the checks of a field's presence and shape, each failing with a
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
}
