package io.periodtables.job.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.SharedBufferJsonFactory;
import io.periodtables.job.input.JsonFields.JsonObject;
import io.periodtables.job.input.ReadingRules.Problem;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.annotation.Internal;

/**
 * Turns one input record (a JSON reading or an array of them, see DESIGN.md "Input") into
 * {@link Reading}s, and everything that cannot become a valid item into a {@link Rejection}
 * with a reason code. It never throws for bad input: a poison record becomes a rejection, so
 * it cannot crash-loop the job.
 *
 * <p>The record is read with Jackson's streaming parser into each reading's fields
 * ({@link JsonFields}), which {@link ReadingRules} turns into a reading or the reason it is
 * rejected; the payload is kept as canonical JSON ({@link CanonicalPayload}), which is both
 * what the sink stores and what identifies a reading without {@code eventId}.
 * An instance reuses its buffers: use it from one thread.
 */
@Internal
public final class ReadingParser {

    /** DynamoDB nests documents at most 32 levels deep. */
    static final int MAX_DEPTH = 32;

    /** Records up to this many chars reuse one buffer; a larger one gets its own. */
    private static final int KEPT_CHARS = 64 * 1024;

    /**
     * Nesting depth is limited (DynamoDB's 32 levels, plus the reading itself); number length is
     * not (a Kinesis record holds at most 1 MB; numbers DynamoDB cannot store are checked as
     * {@code bad-number}), nor is string length (Jackson's default, 20 M, is beyond 1 MB).
     */
    static final JsonFactory FACTORY = new SharedBufferJsonFactory((JsonFactoryBuilder) JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH + 1)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .build()));

    private final ReadingRules rules;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private char[] chars = new char[1024];

    public ReadingParser(PeriodTablesConfig config) {
        this.rules = new ReadingRules(config);
    }

    /**
     * Parses one record. The whole record is read before anything is emitted: a record that is
     * not JSON (or too deep) anywhere is one rejection, never a part of its readings.
     *
     * @param raw the record's bytes
     * @param origin where it came from (shard and sequence number, or generator index)
     * @param nowMillis the wall clock, for {@code input.max-future} and the arrival time
     */
    public void parse(
            byte[] raw, String origin, long nowMillis, Consumer<Reading> readings, Consumer<Rejection> rejections) {
        char[] text = raw.length <= chars.length
                ? chars
                : raw.length <= KEPT_CHARS ? (chars = new char[KEPT_CHARS]) : new char[raw.length];
        int length = decode(raw, text);
        if (length < 0) {
            rejections.accept(
                    Rejection.of(RejectReason.INVALID_JSON, "record is not valid UTF-8", raw, nowMillis, origin));
            return;
        }
        // A String source, as Jackson's tree reading had: error messages name the source type.
        String json = new String(text, 0, length);
        Object root = null;
        List<Object> elements = null;
        int[] spans = null; // start and end of each array element in text
        try (JsonParser parser = FACTORY.createParser(json)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                rejections.accept(Rejection.of(RejectReason.INVALID_JSON, "record is empty", raw, nowMillis, origin));
                return;
            }
            if (first == JsonToken.START_ARRAY) {
                elements = new ArrayList<>();
                spans = new int[16];
                JsonToken token;
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    int start = (int) parser.currentTokenLocation().getCharOffset();
                    elements.add(JsonFields.readValue(parser, token));
                    int i = 2 * (elements.size() - 1);
                    spans = i + 1 < spans.length ? spans : Arrays.copyOf(spans, 2 * spans.length);
                    spans[i] = start;
                    spans[i + 1] = (int) parser.currentLocation().getCharOffset();
                }
            } else {
                root = JsonFields.readValue(parser, first);
            }
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                // the words of Jackson's tree reading (FAIL_ON_TRAILING_TOKENS), which rejections carried so far
                throw new JsonParseException(
                        parser,
                        "Trailing token (of type " + trailing + ") found after value (bound as "
                                + "`com.fasterxml.jackson.databind.JsonNode`): not allowed as per"
                                + " `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`");
            }
        } catch (StreamConstraintsException e) {
            // Nesting depth is the only read constraint that input can reach (see FACTORY).
            rejections.accept(
                    Rejection.of(RejectReason.TOO_DEEP, firstLine(e.getOriginalMessage()), raw, nowMillis, origin));
            return;
        } catch (JsonProcessingException e) {
            rejections.accept(
                    Rejection.of(RejectReason.INVALID_JSON, firstLine(e.getOriginalMessage()), raw, nowMillis, origin));
            return;
        } catch (IOException e) {
            throw new IllegalStateException("reading JSON from memory failed", e);
        }
        if (elements == null) {
            Object result = root instanceof JsonObject object
                    ? rules.readingOf(object.fields(), nowMillis)
                    : new Problem(
                            RejectReason.NOT_AN_OBJECT,
                            "record is a JSON " + JsonFields.nodeType(root) + ", not an object");
            emit(result, raw, origin, nowMillis, readings, rejections);
            return;
        }
        if (elements.isEmpty()) {
            rejections.accept(
                    Rejection.of(RejectReason.EMPTY_ARRAY, "record is an empty array", raw, nowMillis, origin));
        }
        for (int i = 0; i < elements.size(); i++) {
            Object element = elements.get(i);
            Object result = element instanceof JsonObject object
                    ? rules.readingOf(object.fields(), nowMillis)
                    : new Problem(RejectReason.NOT_AN_OBJECT, "array element is " + JsonFields.nodeType(element));
            byte[] elementRaw =
                    result instanceof Problem ? ElementText.raw(json.substring(spans[2 * i], spans[2 * i + 1])) : null;
            emit(result, elementRaw, origin + "[" + i + "]", nowMillis, readings, rejections);
        }
    }

    private static void emit(
            Object result,
            byte[] raw,
            String origin,
            long nowMillis,
            Consumer<Reading> readings,
            Consumer<Rejection> rejections) {
        if (result instanceof Problem problem) {
            rejections.accept(Rejection.of(problem.reason(), problem.message(), raw, nowMillis, origin));
        } else {
            readings.accept((Reading) result);
        }
    }

    /** Decodes strict UTF-8 into {@code text}: the number of chars, or -1 when {@code raw} is not UTF-8. */
    private int decode(byte[] raw, char[] text) {
        CharBuffer out = CharBuffer.wrap(text);
        utf8.reset();
        if (utf8.decode(ByteBuffer.wrap(raw), out, true).isError()
                || utf8.flush(out).isError()) {
            return -1;
        }
        return out.position();
    }

    private static String firstLine(String message) {
        int nl = message.indexOf('\n');
        return abbreviate(nl < 0 ? message : message.substring(0, nl));
    }

    static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    /** Collects the results of one parse, for tests and callers that want lists. */
    public static final class Result {
        public final List<Reading> readings = new ArrayList<>();
        public final List<Rejection> rejections = new ArrayList<>();
    }

    public Result parse(byte[] raw, String origin, long nowMillis) {
        Result result = new Result();
        parse(raw, origin, nowMillis, result.readings::add, result.rejections::add);
        return result;
    }
}
