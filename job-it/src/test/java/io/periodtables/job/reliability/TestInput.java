package io.periodtables.job.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The bounded input of one reliability run: raw records in the order the source emits them,
 * all with one origin (as the Kinesis source gives every record of a stream the same one), so
 * a bad record sent twice is one rejected item.
 */
final class TestInput {
    static final String ORIGIN = "reliability";

    private final List<byte[]> records = new ArrayList<>();

    /** A record of UTF-8 JSON text. */
    TestInput json(String text) {
        return bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A record of raw bytes (not necessarily UTF-8 or JSON). */
    TestInput bytes(byte[] data) {
        records.add(data.clone());
        return this;
    }

    /** A reading of {@code device} at {@code time} with a payload given as JSON members ({@code "t":21.5,"ok":true}). */
    TestInput reading(String device, Instant time, String payloadMembers) {
        return json(readingJson(device, time, payloadMembers));
    }

    /** The same record again (a duplicate delivery). */
    TestInput again(int index) {
        records.add(records.get(index).clone());
        return this;
    }

    int size() {
        return records.size();
    }

    /** The records' bytes, in order; the list is not modifiable. */
    List<byte[]> data() {
        return Collections.unmodifiableList(records);
    }

    static String readingJson(String device, Instant time, String payloadMembers) {
        String payload = payloadMembers.isEmpty() ? "" : "," + payloadMembers;
        return "{\"deviceId\":" + quote(device) + ",\"timestamp\":\"" + time + "\"" + payload + "}";
    }

    /** {@code s} as a JSON string literal. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
