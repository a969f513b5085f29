package io.periodtables.emulators;

import java.net.URI;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An {@link S3Emulator} for one test class, with its bucket, started before the class and
 * closed (objects deleted) after it. Only the archive's tests use S3, so there is no emulator
 * shared across classes.
 *
 * <pre>{@code @RegisterExtension static final S3Extension S3 = new S3Extension("archive");}</pre>
 */
public final class S3Extension implements BeforeAllCallback, AfterAllCallback {
    private final String bucket;
    private S3Emulator emulator;

    public S3Extension(String bucket) {
        this.bucket = bucket;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        emulator = S3Emulator.start(bucket);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (emulator != null) {
            emulator.close();
            emulator = null;
        }
    }

    /** The emulator of the running class. */
    public S3Emulator emulator() {
        if (emulator == null) {
            throw new IllegalStateException(
                    "S3Extension is not started: register it as a static @RegisterExtension field");
        }
        return emulator;
    }

    /** {@code http://127.0.0.1:<port>} of the emulator. */
    public URI endpoint() {
        return emulator().endpoint();
    }

    /** The bucket that exists from the start. */
    public String bucket() {
        return bucket;
    }
}
