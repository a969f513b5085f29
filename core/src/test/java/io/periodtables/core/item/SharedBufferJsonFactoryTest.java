package io.periodtables.core.item;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class SharedBufferJsonFactoryTest {

    /** Long enough that each parse takes and returns the shared buffers, several threads at a time. */
    private static String payload(int n) {
        StringBuilder json = new StringBuilder("{\"n\":").append(n).append(",\"text\":\"");
        json.append(String.valueOf((char) ('a' + n % 26)).repeat(3000 + n % 100));
        return json.append("\",\"list\":[1,2.5,null,{\"x\":\"")
                .append(n)
                .append("\"}]}")
                .toString();
    }

    @Test
    void threadsParsingAtOnceEachReadTheirOwnText() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t * 1000;
                Callable<Boolean> parses = () -> {
                    for (int n = offset; n < offset + 500; n++) {
                        Map<String, AttributeValue> item = ItemAttributes.ofJsonObject(payload(n));
                        if (!item.get("n").n().equals(Integer.toString(n))
                                || item.get("text").s().length() != 3000 + n % 100
                                || item.get("text").s().charAt(2999) != (char) ('a' + n % 26)
                                || !item.get("list").l().get(3).m().get("x").s().equals(Integer.toString(n))) {
                            return false;
                        }
                    }
                    return true;
                };
                results.add(threads.submit(parses));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aCopySharesTheBuffersAndParses() throws Exception {
        JsonFactory copy = new SharedBufferJsonFactory().copy();

        assertThat(copy).isInstanceOf(SharedBufferJsonFactory.class);
        try (JsonParser parser = copy.createParser("[1,2]")) {
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
            assertThat(parser.nextToken()).isEqualTo(JsonToken.VALUE_NUMBER_INT);
            assertThat(parser.getIntValue()).isEqualTo(1);
        }
    }
}
