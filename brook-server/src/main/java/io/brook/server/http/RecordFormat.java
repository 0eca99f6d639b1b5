package io.brook.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/**
 * How a key, value or header value is written in JSON: {@code json} (any JSON value, stored as its
 * compact UTF-8 text), {@code string} (a JSON string, stored as its UTF-8 bytes) or {@code binary}
 * (a base64 string, stored as the decoded bytes). JSON {@code null} is a null key or value in every
 * format.
 */
enum RecordFormat {
  JSON,
  STRING,
  BINARY;

  private static final ObjectMapper MAPPER = Json.MAPPER;

  /** The format a request names, or {@code fallback} when it names none. */
  static RecordFormat parse(String field, String value, RecordFormat fallback) {
    if (value == null) {
      return fallback;
    }
    try {
      return valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw HttpApiException.badRequest(
          field + " must be json, string or binary, not \"" + value + "\"");
    }
  }

  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The bytes {@code node} stands for, null for JSON null or a missing field. */
  byte[] encode(String field, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    return switch (this) {
      case JSON -> {
        try {
          yield MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
          throw HttpApiException.badRequest(field + ": " + e.getOriginalMessage());
        }
      }
      case STRING -> {
        if (!node.isTextual()) {
          throw HttpApiException.badRequest(field + " must be a string (format string)");
        }
        yield node.textValue().getBytes(StandardCharsets.UTF_8);
      }
      case BINARY -> {
        if (!node.isTextual()) {
          throw HttpApiException.badRequest(field + " must be a base64 string (format binary)");
        }
        try {
          yield Base64.getDecoder().decode(node.textValue());
        } catch (IllegalArgumentException e) {
          throw HttpApiException.badRequest(field + " is not valid base64: " + e.getMessage());
        }
      }
    };
  }

  /**
   * {@code bytes} as this format writes them, or null when they are not valid in it (not UTF-8, not
   * JSON): the caller then writes them as binary. A null buffer is JSON null.
   */
  JsonNode decode(ByteBuffer bytes) {
    if (bytes == null) {
      return JsonNodeFactory.instance.nullNode();
    }
    return switch (this) {
      case JSON -> json(bytes);
      case STRING -> {
        String text = utf8(bytes);
        yield text == null ? null : JsonNodeFactory.instance.textNode(text);
      }
      case BINARY -> binary(bytes);
    };
  }

  private static JsonNode json(ByteBuffer bytes) {
    if (utf8(bytes) == null) {
      return null;
    }
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    try {
      JsonNode node = MAPPER.readTree(array);
      return node == null || node.isMissingNode() ? null : node;
    } catch (IOException e) {
      return null;
    }
  }

  static JsonNode binary(ByteBuffer bytes) {
    ByteBuffer encoded = Base64.getEncoder().encode(bytes.duplicate());
    return JsonNodeFactory.instance.textNode(
        StandardCharsets.ISO_8859_1.decode(encoded).toString());
  }

  private static String utf8(ByteBuffer bytes) {
    try {
      CharBuffer chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(bytes.duplicate());
      return chars.toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
