package io.periodtables.job.input;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;

/**
 * The raw text a rejected element of an array record is stored with: the element alone, written
 * as Jackson writes a tree read with exact numbers (duplicate keys merged, numbers normalised,
 * strings re-escaped). Rejected items are keyed by a hash of this text, so it must not change
 * between versions; only rejected elements pay for the tree.
 */
public final class ElementText {

    private static final ObjectMapper MAPPER = JsonMapper.builder(ReadingParser.FACTORY)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private ElementText() {}

    /** The text of an element the record's parse has read as valid JSON. */
    static byte[] raw(String element) {
        try {
            return MAPPER.readTree(element).toString().getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an array element that parsed once failed to parse again", e);
        }
    }
}
