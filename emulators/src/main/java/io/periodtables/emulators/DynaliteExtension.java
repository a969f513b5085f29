package io.periodtables.emulators;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * One {@link Dynalite} per test JVM, started as {@code dynalite.js} is with no flag (every limit
 * of its fidelity layer enforced, tables taking 500 ms to change state), shared by every test class that registers this
 * extension, with tables isolated per test: the tables a test method creates are deleted after it, those a class
 * creates in {@code @BeforeAll} after the class. Starting the emulator once instead of once per
 * class saves seconds per class; a test that stopped the listener (an outage) finds it restarted,
 * and {@link DynamoDbFaults} start empty for every class.
 *
 * <pre>{@code @RegisterExtension static final DynaliteExtension DYNAMODB = new DynaliteExtension();}</pre>
 *
 * Tests that need their own emulator (a data directory, closing it) start a {@link Dynalite}.
 */
public final class DynaliteExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(DynaliteExtension.class);

    private static final Duration CLEANUP_BOUND = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(50);

    private Dynalite local;
    private DynamoDbClient client;
    private Set<String> beforeClass = Set.of();
    private Set<String> beforeTest = Set.of();

    @Override
    public void beforeAll(ExtensionContext context) {
        Shared shared = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(Shared.class, k -> Shared.get(), Shared.class);
        local = shared.local;
        client = shared.client;
        local.restart();
        local.layer().reset();
        DynamoDbFaults.reset();
        beforeClass = tables();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        local.restart();
        beforeTest = tables();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        local.restart();
        deleteAllBut(beforeTest);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        local.restart();
        deleteAllBut(beforeClass);
        local.layer().reset(); // a limit this class turned off never reaches the next one
        DynamoDbFaults.reset(); // nor a fault rule
    }

    /** The shared emulator. */
    public Dynalite emulator() {
        return checkStarted(local);
    }

    /** {@code http://127.0.0.1:<port>} of the shared emulator. */
    public URI endpoint() {
        return emulator().endpoint();
    }

    /** A synchronous client shared by the tests of this JVM (do not close it). */
    public DynamoDbClient client() {
        return checkStarted(client);
    }

    /**
     * Waits until each table is ACTIVE, as code against DynamoDB must after CreateTable or
     * UpdateTable (the layer keeps them CREATING / UPDATING for a while); for set-up in tests.
     */
    public void awaitActive(String... tables) {
        TestTables.awaitActive(client(), tables);
    }

    /**
     * Waits until each table is gone, as code against DynamoDB must after DeleteTable before it
     * counts on that (a table is DELETING for a while); for tests that delete tables themselves.
     */
    public void awaitGone(String... tables) {
        TestTables.awaitGone(client(), tables);
    }

    private Set<String> tables() {
        Set<String> names = new HashSet<>();
        client.listTablesPaginator().tableNames().forEach(names::add);
        return names;
    }

    /**
     * Deletes the tables created since {@code keep} was read, as DynamoDB lets it: a table that
     * is still CREATING or UPDATING first becomes ACTIVE, and the next test starts once they are
     * gone (a table keeps its name while DELETING).
     */
    private void deleteAllBut(Set<String> keep) {
        List<String> created = tables().stream().filter(t -> !keep.contains(t)).toList();
        if (created.isEmpty()) {
            return;
        }
        local.layer().startClock(); // a stopped clock would hold a CREATING table for ever
        long deadline = System.nanoTime() + CLEANUP_BOUND.toNanos();
        List<String> deleting = new ArrayList<>();
        for (String table : created) {
            while (true) {
                try {
                    client.deleteTable(b -> b.tableName(table));
                    deleting.add(table);
                    break;
                } catch (ResourceNotFoundException gone) {
                    break; // deleted by the test itself meanwhile
                } catch (ResourceInUseException notActiveYet) {
                    pause(deadline, table + " never became ACTIVE to be deleted");
                }
            }
        }
        for (String table : deleting) {
            while (true) {
                try {
                    client.describeTable(b -> b.tableName(table));
                    pause(deadline, table + " stayed DELETING");
                } catch (ResourceNotFoundException gone) {
                    break;
                }
            }
        }
    }

    private static void pause(long deadline, String failure) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(failure + " within " + CLEANUP_BOUND);
        }
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted cleaning up tables", e);
        }
    }

    private static <T> T checkStarted(T value) {
        if (value == null) {
            throw new IllegalStateException(
                    "DynaliteExtension is not started: register it as a static @RegisterExtension field");
        }
        return value;
    }

    /**
     * The JVM's shared emulator, for test helpers that run outside a registered extension (they
     * get no table isolation). Started on first use.
     */
    public static Dynalite shared() {
        return Shared.get().local;
    }

    /** The per-JVM emulator, closed by JUnit when the root context closes (end of the run). */
    private static final class Shared implements ExtensionContext.Store.CloseableResource {
        private static Shared instance;
        final Dynalite local = Dynalite.start();
        final DynamoDbClient client = local.syncClient();

        static synchronized Shared get() {
            if (instance == null) {
                instance = new Shared();
            }
            return instance;
        }

        @Override
        public void close() {
            synchronized (Shared.class) {
                instance = null;
            }
            client.close();
            local.close();
        }
    }
}
