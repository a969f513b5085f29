package io.periodtables.rotation.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.TestSetup;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Retention in the plan, with and without an archive to wait for; raising an open table. */
class TablePlanTest {
    private static final Instant NOW = Instant.parse("2030-03-10T12:30:00Z");
    private final PeriodTablesConfig config = TestSetup.config(
            URI.create("http://127.0.0.1:9"),
            "tables.prefix",
            "plan",
            "tables.period",
            "PT1H",
            "tables.retention",
            "PT6H");
    private final TablePlan plan =
            new TablePlan(config, Lifecycle.of(config), new OpenCapacity(config, new WriteLoad()));
    private final TableNaming naming = config.naming();
    private final Period expired = config.calendar().periodOf(NOW.minusSeconds(10 * 3600));
    private final Period recent = config.calendar().periodOf(NOW.minusSeconds(5 * 3600));

    private static ManagedTable table(String name) {
        return new ManagedTable(
                name, "ACTIVE", Capacity.provisioned(1, 1), false, 0, null, null, false, ManagedTable.STANDARD, 0);
    }

    private static TablePlan.View view(Set<Period> archived) {
        return new TablePlan.View(NOW, NOW, NOW, Set.of(), Set.of(), archived);
    }

    private Optional<TablePlan.Kind> action(String name, Set<Period> archived) {
        return plan.actionFor(name, table(name), view(archived)).map(TablePlan.Action::kind);
    }

    @Test
    void withoutAnArchiveAnExpiredTableIsDeletedAtOnce() {
        String name = naming.periodTable(expired);
        assertThat(action(name, null)).contains(TablePlan.Kind.DELETE);
        assertThat(plan.awaitedArchive(name, table(name), view(null))).isEmpty();
    }

    @Test
    void anExpiredPeriodTableWaitsForItsPeriodsArchive() {
        String name = naming.periodTable(expired);
        assertThat(action(name, Set.of(recent))).isNotEqualTo(Optional.of(TablePlan.Kind.DELETE));
        assertThat(plan.awaitedArchive(name, table(name), view(Set.of(recent)))).contains(expired);

        assertThat(action(name, Set.of(expired))).contains(TablePlan.Kind.DELETE);
        assertThat(plan.awaitedArchive(name, table(name), view(Set.of(expired))))
                .isEmpty();
    }

    @Test
    void aTableInsideRetentionAwaitsNothing() {
        String name = naming.periodTable(recent);
        assertThat(plan.awaitedArchive(name, table(name), view(Set.of()))).isEmpty();
        assertThat(action(name, Set.of(recent))).isNotEqualTo(Optional.of(TablePlan.Kind.DELETE));
    }

    @Test
    void aLateTableWaitsForThePeriodHoldingTheFirstInstantOfTheNextMonth() {
        String name = naming.prefix() + "_late_2030-01";
        Period february = config.calendar().periodOf(Instant.parse("2030-02-01T00:00:00Z"));
        Period lastOfJanuary = config.calendar().periodOf(Instant.parse("2030-01-31T23:59:59Z"));

        assertThat(plan.awaitedArchive(name, table(name), view(Set.of(lastOfJanuary))))
                .contains(february);
        assertThat(action(name, Set.of(lastOfJanuary))).isNotEqualTo(Optional.of(TablePlan.Kind.DELETE));
        assertThat(action(name, Set.of(february))).contains(TablePlan.Kind.DELETE);
    }

    @Test
    void theRejectedTableAwaitsNothingAndIsNeverDeleted() {
        String name = naming.rejectedTable();
        assertThat(plan.awaitedArchive(name, table(name), view(Set.of()))).isEmpty();
        assertThat(action(name, null)).isNotEqualTo(Optional.of(TablePlan.Kind.DELETE));
    }

    @Test
    void anExistingOpenTableIsRaisedOnlyToASizeThisRunMeasured() {
        Period next = config.calendar().next(config.calendar().periodOf(NOW));
        String name = naming.periodTable(next);
        ManagedTable sized = new ManagedTable(
                name, "ACTIVE", Capacity.provisioned(29, 300), false, 0, null, null, false, ManagedTable.STANDARD, 0);
        TablePlan.View view = view(null);

        assertThat(plan.actionFor(name, sized, view))
                .as("its sizing period is not observed (a replay begun after it): kept, not raised to the current tier")
                .isEmpty();

        WriteLoad load = new WriteLoad();
        OpenCapacity open = new OpenCapacity(config, load);
        load.add(new TableLoad(naming.periodTable(open.sizedFrom(next)), 1, 70));
        TablePlan measured = new TablePlan(config, Lifecycle.of(config), open);
        assertThat(measured.actionFor(name, sized, view))
                .as("measured: raised to ceil(70 / 0.7)")
                .hasValueSatisfying(a -> assertThat(a.target()).isEqualTo(Capacity.provisioned(100, 300)));
    }
}
