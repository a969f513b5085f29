package io.periodtables.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The jar uploaded to Managed Service for Apache Flink: {@code job/target/period-tables-job.jar}
 * as the build produced it (the job module is this module's test dependency, so the reactor
 * packages it first).
 */
class ShadedJarTest {

    private static final long MSF_MAX_BYTES = 512L * 1024 * 1024;
    private static File jar;
    private static List<String> entries;

    @BeforeAll
    static void open() throws Exception {
        jar = new File("../job/target/period-tables-job.jar");
        assertThat(jar)
                .as("the MSF jar; build it with mvn verify (or package) from the root")
                .isFile();
        entries = new ArrayList<>();
        try (JarFile file = new JarFile(jar)) {
            file.stream().forEach(e -> entries.add(e.getName()));
        }
    }

    @Test
    void mainClassIsTheJob() throws Exception {
        try (JarFile file = new JarFile(jar)) {
            Manifest manifest = file.getManifest();
            assertThat(manifest.getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("io.periodtables.job.PeriodTablesJob");
        }
        assertThat(entries)
                .contains(
                        "io/periodtables/job/PeriodTablesJob.class",
                        "io/periodtables/sink/PeriodTableSink.class",
                        "io/periodtables/rotation/Rotation.class",
                        "io/periodtables/core/period/PeriodCalendar.class");
    }

    @Test
    void flinkRuntimeAndLocalOnlyPartsAreLeftOut() {
        assertThat(entries)
                .noneMatch(e -> e.startsWith("org/apache/flink/runtime/"))
                .noneMatch(e -> e.startsWith("org/apache/flink/streaming/api/environment/"))
                .noneMatch(e -> e.startsWith("com/amazonaws/services/dynamodbv2/local/"))
                // the local run, verify, the emulators and the query CLI are not part of the job
                .noneMatch(e -> e.startsWith("io/periodtables/local/"))
                .noneMatch(e -> e.startsWith("io/periodtables/verification/"))
                .noneMatch(e -> e.startsWith("io/periodtables/emulators/"))
                .noneMatch(e -> e.startsWith("io/periodtables/query/"))
                .noneMatch(e -> e.equals("log4j2-local.properties"))
                .noneMatch(e -> e.startsWith("org/apache/logging/log4j/core/"))
                .noneMatch(e -> e.matches("META-INF/[^/]+\\.(SF|DSA|RSA|EC)"));
    }

    @Test
    void serviceFilesOfTheSdkAndTheConnectorArePresent() throws Exception {
        try (JarFile file = new JarFile(jar)) {
            String async = new String(
                    file.getInputStream(file.getEntry(
                                    "META-INF/services/software.amazon.awssdk.http.async.SdkAsyncHttpService"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(async).contains("software.amazon.awssdk.http.nio.netty.NettySdkAsyncHttpService");
            String kinesisHttp = new String(
                    file.getInputStream(
                                    file.getEntry(
                                            "META-INF/services/org.apache.flink.kinesis.shaded.software.amazon.awssdk.http.SdkHttpService"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(kinesisHttp)
                    .as("KinesisStreamsSource's relocated SDK finds its HTTP client")
                    .contains("apache");
            // a provider named in a services file but left out of the jar fails whoever iterates them
            for (String entry : entries) {
                if (entry.startsWith("META-INF/services/") && !entry.endsWith("/")) {
                    new String(file.getInputStream(file.getEntry(entry)).readAllBytes(), StandardCharsets.UTF_8)
                            .lines()
                            .map(line -> line.replaceAll("#.*", "").strip())
                            .filter(provider -> !provider.isEmpty())
                            .forEach(provider -> assertThat(entries)
                                    .as(entry + " names " + provider)
                                    .contains(provider.replace('.', '/') + ".class"));
                }
            }
            var reporters = file.getEntry("META-INF/services/org.apache.flink.metrics.reporter.MetricReporterFactory");
            if (reporters != null) { // the local run's status reporter registers in the local module, not here
                assertThat(new String(file.getInputStream(reporters).readAllBytes(), StandardCharsets.UTF_8))
                        .doesNotContain("io.periodtables");
            }
        }
        assertThat(entries).contains("log4j2.properties");
    }

    @Test
    void theArchiveCarriesParquetButNoFileSystem() throws Exception {
        assertThat(entries)
                .contains(
                        "io/periodtables/archive/Archive.class",
                        "org/apache/flink/connector/file/sink/FileSink.class",
                        "org/apache/flink/formats/parquet/ParquetWriterFactory.class",
                        "org/apache/parquet/hadoop/ParquetFileReader.class",
                        "org/apache/hadoop/mapreduce/lib/input/FileInputFormat.class");
        // Flink registers file systems once per process from its class path and plugins folder,
        // never from a job's jar; MSF installs S3 itself (docs/operations.md)
        assertThat(entries)
                .doesNotContain("META-INF/services/org.apache.flink.core.fs.FileSystemFactory")
                .noneMatch(e -> e.startsWith("org/apache/flink/fs/"))
                .noneMatch(e -> e.startsWith("org/apache/hadoop/fs/s3a/"))
                .noneMatch(e -> e.startsWith("com/amazonaws/services/s3/"));
    }

    @Test
    void theKinesisConnectorsLegacyPartsAreLeftOut() {
        // flink-connector-kinesis bundles FlinkKinesisConsumer/Producer with AWS SDK v1, the KCL and
        // the KPL's native binaries (77 MB); KinesisStreamsSource reaches none of them
        assertThat(entries)
                .contains("org/apache/flink/connector/kinesis/source/KinesisStreamsSource.class")
                .noneMatch(e -> e.startsWith("amazon-kinesis-producer-native-binaries/"))
                .noneMatch(e -> e.startsWith("org/apache/flink/kinesis/shaded/com/amazonaws/"))
                .noneMatch(e -> e.startsWith("org/apache/flink/streaming/connectors/kinesis/"));
    }

    @Test
    void fitsManagedFlinksLimit() {
        assertThat(jar.length()).isLessThan(MSF_MAX_BYTES);
    }
}
