package io.periodtables.emulators;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The control endpoint of a fidelity layer ({@code /__fidelity} of {@code dynalite.js} or {@code
 * kinesalite.js}): a JSON change posted, the layer's settings and counters read back.
 */
final class LayerControl {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI endpoint;
    private final HttpClient control =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    LayerControl(URI endpoint) {
        this.endpoint = endpoint;
    }

    /** The layer's settings and counters now. */
    JsonNode state() {
        return send(null);
    }

    /** Posts {@code change} (a JSON object; null: none) and returns the settings and counters after it. */
    JsonNode send(String change) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(endpoint.resolve("/__fidelity")).timeout(Duration.ofSeconds(10));
        request = change == null ? request.GET() : request.POST(HttpRequest.BodyPublishers.ofString(change));
        try {
            HttpResponse<String> response = control.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode answer = JSON.readTree(response.body());
            if (response.statusCode() != 200) {
                throw new IllegalArgumentException("the fidelity layer refused " + change + ": " + answer);
            }
            return answer instanceof ObjectNode ? answer : JSON.createObjectNode();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach the fidelity layer on " + endpoint, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted talking to the fidelity layer", e);
        }
    }

    /** A counter of the layer's state, failing with the state when there is none of that name. */
    long counter(String name) {
        JsonNode state = state();
        JsonNode value = state.get("counters").get(name);
        if (value == null) {
            throw new IllegalArgumentException("no counter " + name + " in " + state);
        }
        return value.asLong();
    }

    static String quoted(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
