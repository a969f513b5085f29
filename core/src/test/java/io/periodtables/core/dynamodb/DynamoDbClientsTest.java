package io.periodtables.core.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.periodtables.core.config.ConfigLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

class DynamoDbClientsTest {
    private static final byte[] NOT_FOUND =
            ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException\","
                            + "\"message\":\"Requested resource not found\"}")
                    .getBytes(StandardCharsets.UTF_8);

    static {
        // headers and body in one segment, else Nagle's algorithm meets the delayed ACK: 40 ms a call
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** The client ports the calls came from: one per connection. */
    private final Set<Integer> connections = ConcurrentHashMap.newKeySet();

    private HttpServer dynamoDb;

    @BeforeEach
    void answerEveryCallWithResourceNotFound() throws IOException {
        dynamoDb = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        dynamoDb.createContext("/", exchange -> {
            connections.add(exchange.getRemoteAddress().getPort());
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
            exchange.sendResponseHeaders(400, NOT_FOUND.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(NOT_FOUND);
            }
        });
        dynamoDb.start();
    }

    @AfterEach
    void stop() {
        dynamoDb.stop(0);
    }

    /**
     * The SDK aborts the HTTP request of every failed call; an answer that was read to its end
     * must not lose its connection to that (nor kill the next call that took the connection).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anErrorAnswerKeepsItsConnectionForTheNextCall(boolean nonBlockingCallbacks) {
        String endpoint = "http://127.0.0.1:" + dynamoDb.getAddress().getPort();
        DynamoDbClients clients = DynamoDbClients.of(
                ConfigLoader.fromMap(Map.of("dynamodb.endpoint", endpoint, "dynamodb.embedded", "false"), true));
        try (DynamoDbAsyncClient client =
                nonBlockingCallbacks ? clients.newAsyncClientForNonBlockingCallbacks(1) : clients.newAsyncClient(1)) {
            for (int call = 0; call < 20; call++) {
                assertThatThrownBy(() -> client.describeTable(b -> b.tableName("missing"))
                                .join())
                        .hasCauseInstanceOf(ResourceNotFoundException.class);
            }
        }
        assertThat(connections).as("connections the 20 calls used").hasSize(1);
    }

    /**
     * The clients share one event loop group while any is open; the last one to close shuts it
     * down (its threads end) and the next client starts a new one.
     */
    @org.junit.jupiter.api.Test
    void clientsShareTheirEventLoopsUntilTheLastOneCloses() {
        String endpoint = "http://127.0.0.1:" + dynamoDb.getAddress().getPort();
        DynamoDbClients clients = DynamoDbClients.of(
                ConfigLoader.fromMap(Map.of("dynamodb.endpoint", endpoint, "dynamodb.embedded", "false"), true));
        DynamoDbAsyncClient first = clients.newAsyncClient(1);
        DynamoDbAsyncClient second = clients.newAsyncClientForNonBlockingCallbacks(1);
        var shared = SharedEventLoops.current();
        assertThat(shared).isNotNull();
        first.close();
        assertThat(SharedEventLoops.current()).isSameAs(shared);
        assertThatThrownBy(
                        () -> second.describeTable(b -> b.tableName("missing")).join())
                .as("a call of the client still open")
                .hasCauseInstanceOf(ResourceNotFoundException.class);
        second.close();
        assertThat(shared.eventLoopGroup().isTerminated())
                .as("the group after the last client closed")
                .isTrue();
        assertThat(SharedEventLoops.current()).isNull();
        try (DynamoDbAsyncClient third = clients.newAsyncClient(1)) {
            assertThat(SharedEventLoops.current()).isNotNull().isNotSameAs(shared);
            assertThatThrownBy(() ->
                            third.describeTable(b -> b.tableName("missing")).join())
                    .hasCauseInstanceOf(ResourceNotFoundException.class);
        }
    }
}
