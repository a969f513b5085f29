package io.periodtables.core.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpResponseHandler;
import software.amazon.awssdk.utils.AttributeMap;

class AbortGuardedHttpClientTest {
    /** Stands in for the Netty client: keeps the request it got and the future it returned. */
    private final class Recording implements SdkAsyncHttpClient {
        AsyncExecuteRequest request;
        final CompletableFuture<Void> exchange = new CompletableFuture<>();

        @Override
        public CompletableFuture<Void> execute(AsyncExecuteRequest request) {
            this.request = request;
            return exchange;
        }

        @Override
        public void close() {}
    }

    private final Recording netty = new Recording();
    private final SdkAsyncHttpClient client = AbortGuardedHttpClient.around(new SdkAsyncHttpClient.Builder() {
                @Override
                public SdkAsyncHttpClient buildWithDefaults(AttributeMap serviceDefaults) {
                    return netty;
                }
            })
            .build();

    @Test
    void anAbortAfterTheAnswerWasReadLeavesTheExchangeToFinish() {
        CompletableFuture<Void> call = client.execute(request());
        readWholeAnswer();

        call.completeExceptionally(new IllegalStateException("service error"));

        assertThat(netty.exchange).isNotDone();
        netty.exchange.complete(null);
        assertThat(netty.exchange).isCompleted();
    }

    @Test
    void anAbortWhileTheAnswerIsReadAbortsTheExchange() {
        CompletableFuture<Void> call = client.execute(request());

        call.completeExceptionally(new IllegalStateException("call timed out"));

        assertThat(netty.exchange).isCompletedExceptionally();
    }

    @Test
    void aCancelWhileTheAnswerIsReadCancelsTheExchange() {
        CompletableFuture<Void> call = client.execute(request());

        call.cancel(true);

        assertThat(netty.exchange).isCancelled();
    }

    @Test
    void theExchangeOutcomeReachesTheCaller() {
        CompletableFuture<Void> call = client.execute(request());

        netty.exchange.completeExceptionally(new IllegalStateException("connection reset"));

        assertThat(call).isCompletedExceptionally();
    }

    private void readWholeAnswer() {
        SdkAsyncHttpResponseHandler handler = netty.request.responseHandler();
        handler.onHeaders(SdkHttpResponse.builder().statusCode(400).build());
        Publisher<ByteBuffer> body = subscriber -> subscriber.onSubscribe(new Subscription() {
            @Override
            public void request(long n) {
                subscriber.onNext(ByteBuffer.wrap(new byte[] {'{', '}'}));
                subscriber.onComplete();
            }

            @Override
            public void cancel() {}
        });
        handler.onStream(body);
    }

    private static AsyncExecuteRequest request() {
        return AsyncExecuteRequest.builder()
                .request(SdkHttpRequest.builder()
                        .method(SdkHttpMethod.POST)
                        .protocol("http")
                        .host("127.0.0.1")
                        .port(8000)
                        .build())
                .requestContentPublisher(null)
                .responseHandler(new SdkAsyncHttpResponseHandler() {
                    @Override
                    public void onHeaders(SdkHttpResponse headers) {}

                    @Override
                    public void onStream(Publisher<ByteBuffer> stream) {
                        stream.subscribe(new Subscriber<ByteBuffer>() {
                            @Override
                            public void onSubscribe(Subscription subscription) {
                                subscription.request(Long.MAX_VALUE);
                            }

                            @Override
                            public void onNext(ByteBuffer bytes) {}

                            @Override
                            public void onError(Throwable error) {}

                            @Override
                            public void onComplete() {}
                        });
                    }

                    @Override
                    public void onError(Throwable error) {}
                })
                .build();
    }
}
