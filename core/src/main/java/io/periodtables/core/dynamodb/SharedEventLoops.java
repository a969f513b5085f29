package io.periodtables.core.dynamodb;

import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.utils.AttributeMap;

/**
 * One Netty event loop group for every async AWS client of period-tables in this class loader,
 * open while any of them is and shut down without a quiet period when the last one closes. The
 * SDK's own shared group does the same but waits out a quiet period of 2 s first
 * ({@code NettyNioAsyncHttpClient.close}): every job end, failover and stop with a savepoint
 * waited those seconds on the task that closed the last client, after everything was written.
 * The clients are closed only once their calls have ended, so nothing is left for a quiet period
 * to run.
 */
@Internal
public final class SharedEventLoops {
    private static final Object LOCK = new Object();
    private static SdkEventLoopGroup group;
    private static int clients;

    private SharedEventLoops() {}

    /**
     * A builder for the SDK client builder's {@code httpClientBuilder}: the Netty client gets the
     * shared group, and closing it lets go of the group.
     */
    public static SdkAsyncHttpClient.Builder<?> around(NettyNioAsyncHttpClient.Builder netty) {
        return new Builder(netty);
    }

    /** The group now shared, or null when no client is open. */
    @VisibleForTesting
    static SdkEventLoopGroup current() {
        synchronized (LOCK) {
            return group;
        }
    }

    private static SdkEventLoopGroup acquire() {
        synchronized (LOCK) {
            if (group == null) {
                group = SdkEventLoopGroup.builder().build();
            }
            clients++;
            return group;
        }
    }

    private static void release(SdkEventLoopGroup used) {
        synchronized (LOCK) {
            if (used != group || --clients > 0) {
                return;
            }
            group = null;
        }
        used.eventLoopGroup().shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(6, TimeUnit.SECONDS);
    }

    private static final class Builder implements SdkAsyncHttpClient.Builder<Builder> {
        private final NettyNioAsyncHttpClient.Builder netty;

        Builder(NettyNioAsyncHttpClient.Builder netty) {
            this.netty = netty;
        }

        @Override
        public SdkAsyncHttpClient buildWithDefaults(AttributeMap serviceDefaults) {
            SdkEventLoopGroup used = acquire();
            try {
                return new Client(netty.eventLoopGroup(used).buildWithDefaults(serviceDefaults), used);
            } catch (RuntimeException e) {
                release(used);
                throw e;
            }
        }
    }

    private static final class Client implements SdkAsyncHttpClient {
        private final SdkAsyncHttpClient delegate;
        private final SdkEventLoopGroup used;
        private boolean closed;

        Client(SdkAsyncHttpClient delegate, SdkEventLoopGroup used) {
            this.delegate = delegate;
            this.used = used;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> execute(AsyncExecuteRequest request) {
            return delegate.execute(request);
        }

        @Override
        public String clientName() {
            return delegate.clientName();
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            try {
                delegate.close();
            } finally {
                release(used);
            }
        }
    }
}
