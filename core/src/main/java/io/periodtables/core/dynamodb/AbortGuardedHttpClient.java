package io.periodtables.core.dynamodb;

import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.annotation.Internal;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpResponseHandler;
import software.amazon.awssdk.utils.AttributeMap;

/**
 * An async HTTP client in front of the SDK's Netty client that hands the SDK's abort of a failed
 * call on only while the answer is still being read. The SDK aborts the HTTP request of every
 * call that fails (2.57.8, not 2.25.50: {@code MakeAsyncHttpRequestStage}'s abort signal), so a service
 * error such as ResourceInUseException or a throttled write fails the HTTP future too. The SDK
 * decides that failure inside the body subscriber's {@code onComplete}, while the Netty client
 * completes its future and returns the connection to the pool only after {@code onComplete}:
 * when the abort gets there first, Netty treats the request as cancelled and closes the
 * connection, idle in the pool (a new connection, against DynamoDB a new TLS handshake, after
 * every error answer) or just handed to the next call, which then fails with "The connection
 * was closed during the request". An answer read to its end has nothing left to abort.
 */
@Internal
public final class AbortGuardedHttpClient implements SdkAsyncHttpClient {
    private final SdkAsyncHttpClient delegate;

    private AbortGuardedHttpClient(SdkAsyncHttpClient delegate) {
        this.delegate = delegate;
    }

    /**
     * A builder for the SDK client builder's {@code httpClientBuilder}, so that the SDK still owns and closes the
     * client.
     */
    public static SdkAsyncHttpClient.Builder<?> around(SdkAsyncHttpClient.Builder<?> delegate) {
        return new Builder(delegate);
    }

    @Override
    public CompletableFuture<Void> execute(AsyncExecuteRequest request) {
        BodyTracking handler = new BodyTracking(request.responseHandler());
        AsyncExecuteRequest.Builder tracked = AsyncExecuteRequest.builder()
                .request(request.request())
                .requestContentPublisher(request.requestContentPublisher())
                .responseHandler(handler)
                .fullDuplex(request.fullDuplex())
                .httpExecutionAttributes(request.httpExecutionAttributes());
        request.metricCollector().ifPresent(tracked::metricCollector);
        CompletableFuture<Void> exchange = delegate.execute(tracked.build());
        CompletableFuture<Void> result = new CompletableFuture<>();
        exchange.whenComplete((ok, error) -> {
            if (error == null) {
                result.complete(null);
            } else {
                result.completeExceptionally(error);
            }
        });
        result.whenComplete((ok, error) -> {
            if (error != null && !exchange.isDone() && !handler.bodyRead) {
                if (error instanceof CancellationException) {
                    exchange.cancel(true);
                } else {
                    exchange.completeExceptionally(error);
                }
            }
        });
        return result;
    }

    @Override
    public String clientName() {
        return delegate.clientName();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Notes when the answer's body has been read to its end, before its subscriber hears of it. */
    private static final class BodyTracking implements SdkAsyncHttpResponseHandler {
        private final SdkAsyncHttpResponseHandler delegate;
        private volatile boolean bodyRead;

        BodyTracking(SdkAsyncHttpResponseHandler delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onHeaders(SdkHttpResponse headers) {
            delegate.onHeaders(headers);
        }

        @Override
        public void onStream(Publisher<ByteBuffer> body) {
            delegate.onStream(subscriber -> body.subscribe(new Subscriber<ByteBuffer>() {
                @Override
                public void onSubscribe(Subscription subscription) {
                    subscriber.onSubscribe(subscription);
                }

                @Override
                public void onNext(ByteBuffer bytes) {
                    subscriber.onNext(bytes);
                }

                @Override
                public void onError(Throwable error) {
                    subscriber.onError(error);
                }

                @Override
                public void onComplete() {
                    bodyRead = true;
                    subscriber.onComplete();
                }
            }));
        }

        @Override
        public void onError(Throwable error) {
            delegate.onError(error);
        }
    }

    private static final class Builder implements SdkAsyncHttpClient.Builder<Builder> {
        private final SdkAsyncHttpClient.Builder<?> delegate;

        Builder(SdkAsyncHttpClient.Builder<?> delegate) {
            this.delegate = delegate;
        }

        @Override
        public SdkAsyncHttpClient buildWithDefaults(AttributeMap serviceDefaults) {
            return new AbortGuardedHttpClient(delegate.buildWithDefaults(serviceDefaults));
        }
    }
}
