package io.periodtables.infra;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module rules of docs/DESIGN.md ("Layout"), on the production classes of every module: what
 * a module may use is what its pom allows, and these rules keep the directions the poms cannot
 * state (test scopes, provided scopes, packages within a module).
 */
class ArchitectureTest {

    private static JavaClasses production;

    @BeforeAll
    static void importClasses() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.periodtables");
        // a rule over no classes passes: make sure every module's classes are here
        assertThat(production.stream().map(c -> c.getPackageName()).distinct())
                .contains(
                        "io.periodtables.core.config",
                        "io.periodtables.core.owner",
                        "io.periodtables.model",
                        "io.periodtables.sink",
                        "io.periodtables.rotation",
                        "io.periodtables.rotation.lifecycle",
                        "io.periodtables.rotation.reconcile",
                        "io.periodtables.rotation.controlplane",
                        "io.periodtables.rotation.operator",
                        "io.periodtables.rotation.owner",
                        "io.periodtables.archive",
                        "io.periodtables.job",
                        "io.periodtables.job.input",
                        "io.periodtables.job.time",
                        "io.periodtables.job.kinesis",
                        "io.periodtables.job.rollups",
                        "io.periodtables.job.rotation",
                        "io.periodtables.job.archive",
                        "io.periodtables.query",
                        "io.periodtables.emulators",
                        "io.periodtables.local",
                        "io.periodtables.verification",
                        "io.periodtables.bench",
                        "io.periodtables.bench.e2e",
                        "io.periodtables.bench.archive");
    }

    @Test
    void theMsfJobKnowsNothingOfTheLocalRunTheEmulatorsOrTheQueryCli() {
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.job..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.periodtables.local..",
                        "io.periodtables.verification..",
                        "io.periodtables.emulators..",
                        "io.periodtables.query.."));
    }

    @Test
    void theSinkAndTheRotationDoNotKnowEachOther() {
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.sink..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.periodtables.rotation.."));
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.rotation..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.periodtables.sink.."));
    }

    @Test
    void theCoreDependsOnNoOtherModule() {
        check(noClasses()
                .that()
                .resideInAnyPackage("io.periodtables.core..", "io.periodtables.model..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.periodtables.sink..",
                        "io.periodtables.rotation..",
                        "io.periodtables.archive..",
                        "io.periodtables.job..",
                        "io.periodtables.query..",
                        "io.periodtables.emulators..",
                        "io.periodtables.local..",
                        "io.periodtables.verification..",
                        "io.periodtables.bench.."));
    }

    /**
     * The lowest room is a straight stack: {@code period}, {@code capacity} and {@code model} at
     * the bottom, {@code item} on them, {@code config} on them, {@code dynamodb} and {@code owner}
     * on top. No edge points up.
     */
    @Test
    void theCoresPackagesDependOnEachOtherWithoutCycles() {
        check(
                slices().matching("io.periodtables.(**)").should().beFreeOfCycles(),
                production.that(
                        JavaClass.Predicates.resideInAnyPackage("io.periodtables.core..", "io.periodtables.model..")));
    }

    /**
     * Whether a watermark ends the input is asked of {@code EndOfInput} only. Reading Flink's
     * {@code MAX_WATERMARK} is a field access, a rule; {@code Long.MAX_VALUE} is a constant the
     * compiler inlines, invisible in the bytecode ArchUnit reads, so its comparisons are looked
     * for in the sources.
     */
    @Test
    void theEndOfInputIsAskedOfOneClass() throws IOException {
        check(noClasses()
                .that()
                .doNotHaveFullyQualifiedName("io.periodtables.core.period.EndOfInput")
                .should()
                .accessField("org.apache.flink.api.common.eventtime.Watermark", "MAX_WATERMARK")
                .orShould()
                .accessField("org.apache.flink.streaming.api.watermark.Watermark", "MAX_WATERMARK"));
        Pattern comparison = Pattern.compile("[!=]=\\s*Long\\.MAX_VALUE|Long\\.MAX_VALUE\\s*[!=]=");
        List<String> found = new ArrayList<>();
        List<Path> sources;
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            sources = modules.map(module -> module.resolve("src/main/java"))
                    .filter(Files::isDirectory)
                    .toList();
        }
        assertThat(sources).hasSizeGreaterThanOrEqualTo(9); // every module with production code
        for (Path source : sources) {
            try (Stream<Path> files = Files.walk(source)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    List<String> lines = Files.readAllLines(file);
                    for (int i = 0; i < lines.size(); i++) {
                        if (comparison.matcher(lines.get(i)).find()) {
                            found.add(file.getFileName() + ":" + (i + 1));
                        }
                    }
                }
            }
        }
        // FaultRule's limit is a count of calls, not a watermark
        assertThat(found).allMatch(at -> at.startsWith("FaultRule.java:"));
    }

    /** The local run, {@code verify --emulators} and the bench start emulators; nothing else does. */
    @Test
    void onlyTheLocalRunVerifyAndTheBenchUseTheEmulators() {
        check(noClasses()
                .that()
                .resideOutsideOfPackages(
                        "io.periodtables.local..",
                        "io.periodtables.verification..",
                        "io.periodtables.emulators..",
                        "io.periodtables.bench..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.periodtables.emulators.."));
    }

    /**
     * The bench measures the other modules through their public types: a bench class in another
     * module's package (a split package) would reach its package-private steps, and the module's
     * jar would not hold what its package does.
     */
    @Test
    void theBenchsClassesLiveInItsOwnPackages() {
        check(classes()
                .that(new DescribedPredicate<JavaClass>("are the bench module's") {
                    @Override
                    public boolean test(JavaClass c) {
                        return c.getSource()
                                .map(s -> s.getUri().toString())
                                .filter(u -> u.contains("/bench/target/classes/") || u.contains("period-tables-bench-"))
                                .isPresent();
                    }
                })
                .should()
                .resideInAPackage("io.periodtables.bench.."));
    }

    @Test
    void flinksShadedInternalsAreNeverUsed() {
        check(noClasses().should().dependOnClassesThat().resideInAPackage("org.apache.flink.shaded.."));
    }

    @Test
    void theRotationsRoomsDependDownwardOnly() {
        check(layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("entry")
                .definedBy("io.periodtables.rotation")
                .layer("operator")
                .definedBy("io.periodtables.rotation.operator..")
                .layer("owner")
                .definedBy("io.periodtables.rotation.owner..")
                .layer("reconcile")
                .definedBy("io.periodtables.rotation.reconcile..")
                .layer("controlplane")
                .definedBy("io.periodtables.rotation.controlplane..")
                .layer("lifecycle")
                .definedBy("io.periodtables.rotation.lifecycle..")
                .whereLayer("entry")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("operator")
                .mayOnlyBeAccessedByLayers("entry")
                .whereLayer("owner")
                .mayOnlyBeAccessedByLayers("entry")
                .whereLayer("reconcile")
                .mayOnlyBeAccessedByLayers("entry", "operator")
                .whereLayer("controlplane")
                .mayOnlyBeAccessedByLayers("entry", "operator", "owner", "reconcile"));
    }

    @Test
    void theLifeCyclePolicyIsPure() {
        check(classes()
                .that()
                .resideInAPackage("io.periodtables.rotation.lifecycle..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.periodtables.core..",
                        "io.periodtables.rotation.lifecycle..",
                        "org.apache.flink.annotation..",
                        "software.amazon.awssdk.services.dynamodb.model.."));
    }

    @Test
    void onlyTheOperatorAndTheEntryPointAreFlinkOperators() {
        check(noClasses()
                .that()
                .resideInAnyPackage(
                        "io.periodtables.rotation.lifecycle..",
                        "io.periodtables.rotation.reconcile..",
                        "io.periodtables.rotation.controlplane..",
                        "io.periodtables.rotation.owner..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.flink.streaming..", "org.apache.flink.runtime..", "org.apache.flink.api.."));
    }

    @Test
    void otherModulesUseTheRotationThroughItsEntryPointAndItsVocabulary() {
        check(noClasses()
                .that()
                .resideOutsideOfPackage("io.periodtables.rotation..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.periodtables.rotation.reconcile..",
                        "io.periodtables.rotation.controlplane..",
                        "io.periodtables.rotation.operator..",
                        "io.periodtables.rotation.owner.."));
    }

    /**
     * The job's root package is its topology: the entry point and the steps the topology wires
     * itself. Each feature (rollups, the rotation's feed, the archive's glue, input, event time,
     * Kinesis) lives in a room of its own, which the topology imports and which never imports it.
     */
    @Test
    void theJobsRoomsDoNotKnowTheTopology() {
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.job.*..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.periodtables.job"));
        // event time knows nothing of where readings come from; parsing nothing of Kinesis or time
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.job.time..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.periodtables.job.input..", "io.periodtables.job.kinesis.."));
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.job.input..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.periodtables.job.kinesis..", "io.periodtables.job.time.."));
    }

    /** The job's rooms use each other one way only (the rotation's feed uses the archive's gate). */
    @Test
    void theJobsRoomsDependOnEachOtherWithoutCycles() {
        check(
                slices().matching("io.periodtables.job.(*)..").should().beFreeOfCycles(),
                production.that(JavaClass.Predicates.resideInAPackage("io.periodtables.job..")));
    }

    /**
     * The bench's root package is the machinery the benchmarks share; each benchmark, and
     * {@code ./bench/run}'s entrance that runs them, is a room that uses it. The shared part uses
     * no room, so a room can be read, moved or removed alone.
     */
    @Test
    void theBenchsSharedPartKnowsNoRoom() {
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.bench")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.periodtables.bench.*.."));
    }

    /** The bench's rooms use each other one way only (the hot device's bench uses the scale bench's report). */
    @Test
    void theBenchsRoomsDependOnEachOtherWithoutCycles() {
        check(
                slices().matching("io.periodtables.bench.(*)..").should().beFreeOfCycles(),
                production.that(JavaClass.Predicates.resideInAPackage("io.periodtables.bench..")));
    }

    /**
     * Every top-level class of the job's root package is the entry point ({@code PeriodTablesJob},
     * {@code PeriodTablesTopology}) or a step they use themselves: a class only a feature's class
     * uses belongs in that feature's room. A class kept there for the serializer snapshot name
     * savepoints hold is the one exception.
     */
    @Test
    void theTopologyPackageHoldsOnlyWhatTheTopologyWires() {
        Set<String> entry = Set.of("io.periodtables.job.PeriodTablesJob", "io.periodtables.job.PeriodTablesTopology");
        List<String> notWired = production.stream()
                .filter(c -> c.getPackageName().equals("io.periodtables.job"))
                .filter(c -> c.isTopLevelClass() && !c.getSimpleName().equals("package-info"))
                .filter(c -> !entry.contains(c.getName()))
                .filter(c -> production.stream()
                        .noneMatch(n -> n.getEnclosingClass()
                                        .filter(outer -> outer.equals(c))
                                        .isPresent()
                                && n.isAssignableTo("org.apache.flink.api.common.typeutils.TypeSerializerSnapshot")))
                .filter(c -> c.getDirectDependenciesToSelf().stream()
                        .noneMatch(
                                d -> entry.contains(topLevel(d.getOriginClass()).getName())))
                .map(JavaClass::getSimpleName)
                .sorted()
                .toList();
        assertThat(notWired)
                .as("classes of io.periodtables.job that neither PeriodTablesJob nor PeriodTablesTopology uses")
                .isEmpty();
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass outer = c;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer;
    }

    /**
     * Flink writes a serializer snapshot's class name into every savepoint and loads the class by
     * that name on restore: moving or renaming one of these breaks every savepoint taken before,
     * unless its old name stays a class, as the rollups' bucket state's did when it moved.
     */
    @Test
    void serializerSnapshotsKeepTheNamesSavepointsHold() {
        Set<String> snapshots = production.stream()
                .filter(c -> c.isAssignableTo("org.apache.flink.api.common.typeutils.TypeSerializerSnapshot"))
                .filter(c -> !c.getModifiers().contains(JavaModifier.ABSTRACT))
                .map(JavaClass::getName)
                .collect(Collectors.toSet());
        assertThat(snapshots)
                .containsExactlyInAnyOrder(
                        "io.periodtables.model.ReadingSerializer$Snapshot",
                        "io.periodtables.model.RejectionSerializer$Snapshot",
                        "io.periodtables.model.SinkRecordSerializer$Snapshot",
                        "io.periodtables.job.RollupAggregate$Snapshot",
                        "io.periodtables.job.rollups.RollupAggregate$Snapshot");
        // a moved snapshot keeps its old name as a subclass that restores the same serializer
        assertThat(production
                        .get("io.periodtables.job.RollupAggregate$Snapshot")
                        .getRawSuperclass())
                .map(JavaClass::getName)
                .hasValue("io.periodtables.job.rollups.RollupAggregate$Snapshot");
    }

    private static void check(ArchRule rule) {
        check(rule, production);
    }

    private static void check(ArchRule rule, JavaClasses classes) {
        rule.check(classes);
    }
}
