package io.periodtables.rotation.reconcile;

import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.controlplane.ControlPlaneErrors;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.controlplane.TableSchemaMismatchException;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link Reconciler} last saw of the tables of the prefix: a cache of DynamoDB, the
 * truth. {@link #read} lists the prefix and describes the tables a pass asks for, plus a slice
 * of the others ({@value #RESYNC_PER_READ} per read, in turn), so a table changed by hand or by
 * the sink is seen again within a few passes without describing every table every time. Used
 * from the operator's thread only.
 */
public final class ActualTables {
    private static final Logger LOG = LoggerFactory.getLogger(ActualTables.class);
    static final int RESYNC_PER_READ = 10;

    private final TableManager tables;
    private final TableNaming naming;
    private final Reconciler.Host host;
    private final Map<String, ManagedTable> known = new TreeMap<>();
    /** Tables of our name with another key schema: someone else's, never touched. */
    private final Set<String> foreign = new HashSet<>();

    private int resyncCursor;

    ActualTables(TableManager tables, TableNaming naming, Reconciler.Host host) {
        this.tables = tables;
        this.naming = naming;
        this.host = host;
    }

    ManagedTable get(String name) {
        return known.get(name);
    }

    boolean contains(String name) {
        return known.containsKey(name);
    }

    void put(ManagedTable table) {
        known.put(table.name(), table);
    }

    void remove(String name) {
        known.remove(name);
    }

    Collection<ManagedTable> all() {
        return known.values();
    }

    List<String> names() {
        return new ArrayList<>(known.keySet());
    }

    /**
     * ListTables over the prefix, then DescribeTable of every listed table of ours that
     * {@code reread} selects (and the resync slice), skipping those {@code busy} says are being
     * changed; forgets tables no longer listed unless busy. Then {@code done} runs on the
     * operator's thread; {@code failed} gets each failure ({@code null} table for the list).
     */
    void read(Predicate<String> reread, Predicate<String> busy, BiConsumer<String, Throwable> failed, Runnable done) {
        tables.list()
                .whenComplete((names, error) -> host.post(() -> {
                    if (error != null) {
                        failed.accept(null, error);
                        done.run();
                        return;
                    }
                    describe(select(names, reread, busy), failed, done);
                }));
    }

    private List<String> select(List<String> names, Predicate<String> reread, Predicate<String> busy) {
        Set<String> listed = new HashSet<>(names);
        known.keySet().removeIf(name -> !listed.contains(name) && !busy.test(name));
        List<String> selected = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (String name : names) {
            if (naming.parse(name).isPresent() && !busy.test(name) && !foreign.contains(name)) {
                (reread.test(name) ? selected : rest).add(name);
            }
        }
        for (int i = 0; i < Math.min(RESYNC_PER_READ, rest.size()); i++) {
            selected.add(rest.get(Math.floorMod(resyncCursor++, rest.size())));
        }
        return selected;
    }

    private void describe(List<String> names, BiConsumer<String, Throwable> failed, Runnable done) {
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (String name : names) {
            reads.add(tables.describe(name).handle((found, error) -> {
                host.post(() -> {
                    if (ControlPlaneErrors.unwrap(error) instanceof TableSchemaMismatchException mismatch) {
                        foreign.add(name);
                        LOG.warn("Leaving table {} alone: {}", name, mismatch.getMessage());
                    } else if (error != null) {
                        failed.accept(name, error);
                    } else if (found.isPresent()) {
                        known.put(name, found.get());
                    } else {
                        known.remove(name);
                    }
                });
                return null;
            }));
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).whenComplete((ok, error) -> host.post(done));
    }
}
