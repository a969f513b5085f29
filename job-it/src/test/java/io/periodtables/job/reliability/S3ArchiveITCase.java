package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.S3Call;
import io.periodtables.emulators.S3CallRecorder;
import io.periodtables.emulators.S3Emulator;
import io.periodtables.emulators.S3Extension;
import io.periodtables.job.archive.ArchivedPeriods;
import io.periodtables.model.Reading;
import io.periodtables.query.cli.QueryCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive on S3 (issue 31): the production topology with {@code archive.path=s3://…} writes
 * through Flink's S3 file system ({@code flink-s3-fs-hadoop}, its recoverable writer: multipart
 * uploads) to s3proxy, across a savepoint taken mid-period. The committed Parquet files, read
 * back from the emulator, are the tables; every period has its marker and retention's gate sees
 * it; no multipart upload is left open; {@code query range --archive s3://…} returns the
 * readings after the tables are gone; and every S3 call the job made is one the
 * CloudFormation template's archive statements allow.
 */
class S3ArchiveITCase {
    private static final Logger LOG = LoggerFactory.getLogger(S3ArchiveITCase.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final String BUCKET = "archive-bucket";
    private static final String PREFIX = "fleet/archive";
    private static final String ARCHIVE = "s3://" + BUCKET + "/" + PREFIX;

    @RegisterExtension
    static final S3Extension S3 = new S3Extension(BUCKET);

    private static final Duration BOUND = Duration.ofSeconds(60);

    /** Between Flink's S3 file system and the emulator: what the job asked of S3. */
    private static S3CallRecorder recorder;

    @BeforeAll
    static void flinkS3FileSystem() throws IOException {
        recorder = S3CallRecorder.start(S3.endpoint());
        // The MiniCluster does not initialize Flink's file systems; a TaskManager does, from its configuration.
        FileSystem.initialize(Configuration.fromMap(S3Emulator.flinkOptions(recorder.endpoint())), null);
    }

    @AfterAll
    static void defaultFileSystems() throws IOException {
        FileSystem.initialize(new Configuration(), null);
        recorder.close();
    }

    @Test
    void aRestoredRunArchivesEveryStoredItemOnceOnS3WithinTheTemplatesPermissions(@TempDir Path savepoints)
            throws Exception {
        ReliabilityRun run = ReliabilityRun.of(
                ReliabilityRun.config(DYNAMODB.emulator().endpoint(), "s3_arch", "archive.path", ARCHIVE),
                Fleet.standard());
        ArchiveReader reader = new ArchiveReader(ARCHIVE);
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(25);

        // Until the job has ended, the test reads the bucket around the recorder: what it records is the job's.
        JobClient first = ArchiveCheck.submit(run, slow, null);
        String savepoint;
        try {
            await("data files committed before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> dataFiles().size() >= 2);
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }
        List<String> atStop = dataFiles();
        List<Period> periods = ArchiveCheck.periods(run);
        Period last = periods.get(periods.size() - 1);
        assertThat(new ArchivedPeriods(ARCHIVE).archived(last))
                .as("retention keeps the open period's table")
                .isFalse();

        ArchiveCheck.submit(run, new TestSource.Hooks(), savepoint)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        List<S3Call> jobCalls = recorder.calls();

        // The restored run closes the periods: their part files, those at the stop included, become compacted files.
        assertThat(dataFiles())
                .as("the restored run added files")
                .isNotEqualTo(atStop)
                .anyMatch(key -> key.contains("/compacted-"));
        ArchiveCheck.assertMatchesTables(run, reader, DYNAMODB.emulator());
        assertThat(S3.emulator().get(BUCKET, "uploads"))
                .as("multipart uploads left open")
                .doesNotContain("<Upload>");
        assertThat(keys())
                .as("only committed data files and markers under the prefix")
                .isNotEmpty()
                .allMatch(key -> key.matches(
                        Pattern.quote(PREFIX) + "/(period|late)=[^/]+/((part|compacted)-[^/]+\\.parquet|_SUCCESS)"));
        assertThat(jobCalls)
                .as("multipart uploads")
                .anyMatch(c -> c.method().equals("POST") && c.query().containsKey("uploads"));

        assertQueryReadsTheArchiveOnceTheTablesAreGone(run);
        assertWithinTheTemplatesPermissions(jobCalls);
    }

    private void assertQueryReadsTheArchiveOnceTheTablesAreGone(ReliabilityRun run) throws IOException {
        TableSnapshot tables = run.snapshot(DYNAMODB.emulator());
        Set<String> deleted = new TreeSet<>(tables.lateTables());
        for (Period period : ArchiveCheck.periods(run)) {
            deleted.add(run.config.naming().periodTable(period));
        }
        deleted.forEach(table -> DYNAMODB.client().deleteTable(b -> b.tableName(table)));
        DYNAMODB.awaitGone(deleted.toArray(String[]::new)); // DynamoDB lists a deleted table while DELETING
        Reading any = run.expected.readings().get(0);
        String device = any.deviceId();
        Set<String> stored = new TreeSet<>();
        tables.items().keySet().stream()
                .filter(ref -> deleted.contains(ref.table()) || ref.table().equals(ExpectedTables.LATE))
                .filter(ref -> ref.pk().equals(device) || ref.pk().startsWith(device + "#"))
                .forEach(ref -> stored.add(ref.sk()));
        long from = run.expected.readings().stream()
                .mapToLong(Reading::eventMillis)
                .min()
                .orElseThrow();
        long to = run.expected.readings().stream()
                        .mapToLong(Reading::eventMillis)
                        .max()
                        .orElseThrow()
                + 1;

        List<String> args = new ArrayList<>(List.of(
                "range",
                "--device",
                device,
                "--from",
                Instant.ofEpochMilli(from).toString(),
                "--to",
                Instant.ofEpochMilli(to).toString(),
                "--archive",
                ARCHIVE));
        S3Emulator.flinkOptions(recorder.endpoint())
                .forEach((key, value) -> args.addAll(List.of("--archive-option", key + "=" + value)));
        PeriodTablesConfig config = run.config;
        args.addAll(List.of(
                "--dynamodb.endpoint",
                DYNAMODB.endpoint().toString(),
                "--tables.prefix",
                config.naming().prefix(),
                "--tables.period",
                "PT1H",
                "--tables.shards",
                "2"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = QueryCli.run(
                args.toArray(new String[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String report = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as("query's exit status; its report:%n%s", report).isZero();
        ObjectMapper json = new ObjectMapper();
        Set<String> printed = new TreeSet<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                printed.add(json.readTree(line).path("sk").asText());
            }
        }
        assertThat(stored).as("%s's readings in the tables", device).isNotEmpty();
        assertThat(printed)
                .as("query range --archive %s; report:%n%s", ARCHIVE, report)
                .isEqualTo(stored);
        assertThat(report).contains("read from the archive " + ARCHIVE);
    }

    private static void assertWithinTheTemplatesPermissions(List<S3Call> calls) throws IOException {
        ArchivePolicy policy = ArchivePolicy.of(BUCKET, PREFIX);
        Set<String> used = new TreeSet<>();
        Set<String> denied = new TreeSet<>();
        Set<String> parentMarkers = new TreeSet<>();
        for (S3Call call : calls) {
            for (S3Call.Permission permission : call.permissions()) {
                used.add(permission.action());
                if (isMarkerAbovePrefix(permission)) {
                    parentMarkers.add(permission.resource());
                } else if (!policy.allows(permission)) {
                    denied.add(permission + " for " + call);
                }
            }
        }
        // Hadoop's S3A deletes the "directory marker" keys above every file it writes itself (the
        // markers), in one multi-object delete. Those above the prefix are outside the grant: S3
        // refuses them key by key, and S3A ignores a failed marker cleanup by design
        // (S3AFileSystem.deleteUnnecessaryFakeDirectories).
        assertThat(parentMarkers).as("markers above the prefix").containsExactly("arn:aws:s3:::" + BUCKET + "/fleet/");
        Set<String> unused = new TreeSet<>(policy.grantedActions());
        unused.removeAll(used);
        LOG.info("S3 calls of the job: {}; actions used {}; granted but unused {}", calls.size(), used, unused);
        assertThat(denied)
                .as("calls the template's archive statements do not allow")
                .isEmpty();
    }

    private static boolean isMarkerAbovePrefix(S3Call.Permission permission) {
        String objects = "arn:aws:s3:::" + BUCKET + "/";
        if (!permission.action().equals("s3:DeleteObject")
                || !permission.resource().startsWith(objects)) {
            return false;
        }
        String key = permission.resource().substring(objects.length());
        return key.endsWith("/") && (PREFIX + "/").startsWith(key) && !key.equals(PREFIX + "/");
    }

    /** The committed data files. */
    private static List<String> dataFiles() {
        return keys().stream().filter(k -> k.endsWith(".parquet")).toList();
    }

    /** The keys of the bucket, listed by the emulator directly. */
    private static List<String> keys() {
        String listing = S3.emulator().get(BUCKET, "list-type=2&max-keys=1000");
        assertThat(listing).doesNotContain("<IsTruncated>true");
        List<String> keys = new ArrayList<>();
        Matcher key = Pattern.compile("<Key>(.*?)</Key>").matcher(listing);
        while (key.find()) {
            keys.add(key.group(1));
        }
        return keys;
    }
}
