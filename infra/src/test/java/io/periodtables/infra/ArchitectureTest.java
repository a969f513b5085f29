package io.periodtables.infra;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
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
                        "io.periodtables.model",
                        "io.periodtables.sink",
                        "io.periodtables.rotation",
                        "io.periodtables.archive",
                        "io.periodtables.job",
                        "io.periodtables.query",
                        "io.periodtables.emulators",
                        "io.periodtables.local");
    }

    @Test
    void theMsfJobKnowsNothingOfTheLocalRunTheEmulatorsOrTheQueryCli() {
        check(noClasses()
                .that()
                .resideInAPackage("io.periodtables.job..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.periodtables.local..", "io.periodtables.emulators..", "io.periodtables.query.."));
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
                        "io.periodtables.bench.."));
    }

    @Test
    void onlyTheLocalRunUsesTheEmulators() {
        check(noClasses()
                .that()
                .resideOutsideOfPackages(
                        "io.periodtables.local..", "io.periodtables.emulators..", "io.periodtables.bench..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.periodtables.emulators.."));
    }

    @Test
    void flinksShadedInternalsAreNeverUsed() {
        check(noClasses().should().dependOnClassesThat().resideInAPackage("org.apache.flink.shaded.."));
    }

    private static void check(ArchRule rule) {
        rule.check(production);
    }
}
