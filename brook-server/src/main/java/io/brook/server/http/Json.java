package io.brook.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;

/** Reading request bodies and the fields of the API's JSON, with 400s that say what is wrong. */
final class Json {
  /**
   * Numbers keep their precision (a JSON value stored and read back is the same number) and a
   * document with anything after its value is refused.
   */
  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

  private Json() {}

  /** The request body as a JSON object; 400 when it is empty, not JSON or not an object. */
  static ObjectNode object(InputStream body, int length) {
    if (length == 0) {
      throw HttpApiException.badRequest("the request needs a JSON body");
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw HttpApiException.badRequest(
          "the body is not valid JSON: "
              + e.getOriginalMessage()
              + (e.getLocation() == null
                  ? ""
                  : " (line "
                      + e.getLocation().getLineNr()
                      + ", column "
                      + e.getLocation().getColumnNr()
                      + ")"));
    } catch (IOException e) {
      throw HttpApiException.badRequest("the body cannot be read: " + e.getMessage());
    }
    if (node == null || !node.isObject()) {
      throw HttpApiException.badRequest("the body must be a JSON object");
    }
    return (ObjectNode) node;
  }

  static String text(JsonNode parent, String field, boolean required) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      if (required) {
        throw HttpApiException.badRequest("\"" + field + "\" is required");
      }
      return null;
    }
    if (!node.isTextual()) {
      throw HttpApiException.badRequest("\"" + field + "\" must be a string");
    }
    return node.textValue();
  }

  /** An integer field, {@code fallback} when absent; 400 when not an integer in range. */
  static long integer(JsonNode parent, String field, long fallback, long min, long max) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return fallback;
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw HttpApiException.badRequest("\"" + field + "\" must be an integer");
    }
    long value = node.longValue();
    if (value < min || value > max) {
      throw HttpApiException.badRequest(
          "\"" + field + "\" must be between " + min + " and " + max + ", not " + value);
    }
    return value;
  }

  /** A query parameter as an integer, {@code fallback} when absent. */
  static long query(String name, String value, long fallback, long min, long max) {
    if (value == null || value.isEmpty()) {
      return fallback;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw HttpApiException.badRequest(name + " must be an integer, not \"" + value + "\"");
    }
    if (parsed < min || parsed > max) {
      throw HttpApiException.badRequest(
          name + " must be between " + min + " and " + max + ", not " + parsed);
    }
    return parsed;
  }
}
