package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.archive.ArchiveRow;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.period.TableNaming;
import java.math.BigDecimal;
import java.math.MathContext;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads a run's archive with DuckDB ({@code read_parquet(…, hive_partitioning = true)}), as an
 * analyst would, and holds it against the tables: rows and distinct keys per period, the typed
 * columns, and "hourly average temperature per device" computed from the items independently.
 */
final class ArchiveDuckDb {

    /** The typed columns the archive cases configure: fields of {@link Fleet}'s readings. */
    static final String COLUMNS = "temp:double,ok:boolean,door:string";

    private ArchiveDuckDb() {}

    static void assertReadsLikeTheTables(ReliabilityRun run, TableSnapshot tables, Map<String, List<ArchiveRow>> rows)
            throws SQLException {
        String root =
                Path.of(URI.create(run.config.get(ConfigKeys.ARCHIVE_PATH))).toString();
        String periods = "read_parquet('" + root + "/period=*/*.parquet', hive_partitioning = true)";
        String late = "read_parquet('" + root + "/late=*/*.parquet', hive_partitioning = true)";
        TableNaming naming = run.config.naming();
        try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
                Statement sql = db.createStatement()) {
            sql.execute("SET TimeZone = 'UTC'");
            Map<String, List<Long>> expected = new TreeMap<>();
            rows.forEach((partition, list) -> {
                if (partition.startsWith("period=")) {
                    String label = partition.substring("period=".length());
                    expected.put(label, List.of((long) list.size(), (long)
                            tables.itemsOf(naming.prefix() + "_" + label).size()));
                }
            });
            assertThat(query(
                            sql,
                            "SELECT period, count(*), count(DISTINCT (pk, sk)) FROM " + periods
                                    + " GROUP BY period ORDER BY period"))
                    .as("rows and distinct items per period folder, read by DuckDB")
                    .isEqualTo(expected);

            assertThat(queryRaw(
                            sql,
                            "SELECT 'types', typeof(device), typeof(event_time), typeof(event_id), typeof(temp),"
                                    + " typeof(ok), typeof(door), typeof(attributes), typeof(ttl) FROM " + periods
                                    + " LIMIT 1"))
                    .isEqualTo(Map.of(
                            "types",
                            List.<Object>of(
                                    "VARCHAR",
                                    "TIMESTAMP WITH TIME ZONE",
                                    "VARCHAR",
                                    "DOUBLE",
                                    "BOOLEAN",
                                    "VARCHAR",
                                    "VARCHAR",
                                    "BIGINT")));
            assertThat(query(sql, "SELECT DISTINCT device FROM " + periods + " ORDER BY device")
                            .keySet())
                    .as("devices without the shard suffix")
                    .containsExactly("dev-0", "dev-1", "dev-2", "dev-3", "dev-4", "dev-5");
            assertThat(query(
                            sql,
                            "SELECT 'mismatched', count(*) FROM " + periods
                                    + " WHERE epoch_ms(event_time) <> epoch_ms(CAST(split_part(sk, '#', 1) AS TIMESTAMPTZ))"
                                    + " OR pk NOT LIKE device || '#%'"))
                    .as("event_time is the sort key's instant, device the partition key's")
                    .containsEntry("mismatched", List.of(0L));
            assertThat(query(
                            sql,
                            "SELECT event_id, count(*) FROM " + periods + " WHERE event_id IS NOT NULL GROUP BY 1"))
                    .as("the eventId reading, sent twice")
                    .isEqualTo(Map.of("e-831", List.of(2L)));
            assertThat(query(sql, "SELECT late, count(DISTINCT (pk, sk)) FROM " + late + " GROUP BY late"))
                    .as("late folders")
                    .isEqualTo(Map.of("2025-06", List.of((long)
                            tables.itemsOf(ExpectedTables.LATE).size())));

            // An analyst's first query, each item once, against the same aggregate over the items.
            Map<String, List<Long>> hourly = query(
                    sql,
                    "SELECT device || ' ' || strftime(date_trunc('hour', event_time), '%Y-%m-%dT%H'),"
                            + " count(temp), round(avg(temp) * 1000000)::BIGINT"
                            + " FROM (SELECT DISTINCT ON (pk, sk) * FROM " + periods + ")"
                            + " GROUP BY 1 ORDER BY 1");
            assertThat(hourly).as("hourly average temp per device").isEqualTo(hourlyFromItems(tables, naming));
        }
    }

    /** Rows, distinct ({@code pk}, {@code sk}) and files of the period folder {@code label} under {@code archive}, by DuckDB. */
    static List<Long> counts(Path archive, String label) throws SQLException {
        try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
                Statement sql = db.createStatement()) {
            return query(
                            sql,
                            "SELECT 'counts', count(*), count(DISTINCT (pk, sk)), count(DISTINCT filename) FROM read_parquet('"
                                    + archive.resolve("period=" + label) + "/*.parquet', filename = true)")
                    .get("counts");
        }
    }

    /** Per device and UTC hour of the period tables' items: how many have {@code temp}, and their mean × 10^6, rounded. */
    private static Map<String, List<Long>> hourlyFromItems(TableSnapshot tables, TableNaming naming) {
        Map<String, List<BigDecimal>> temps = new TreeMap<>();
        tables.items().forEach((ref, item) -> {
            var parsed = naming.parse(ref.table());
            if (parsed.isEmpty() || parsed.get().kind() != TableNaming.TableRef.Kind.PERIOD) {
                return;
            }
            String device = ref.pk().substring(0, ref.pk().lastIndexOf('#'));
            String hour = Instant.parse(ref.sk().substring(0, ref.sk().indexOf('#')))
                    .toString()
                    .substring(0, 13);
            List<BigDecimal> list = temps.computeIfAbsent(device + " " + hour, k -> new ArrayList<>());
            AttributeValue temp = item.get("temp");
            if (temp != null && temp.n() != null) {
                list.add(new BigDecimal(temp.n()));
            }
        });
        Map<String, List<Long>> hourly = new TreeMap<>();
        temps.forEach((key, list) -> {
            BigDecimal sum = list.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
            Long mean = list.isEmpty()
                    ? null
                    : sum.divide(BigDecimal.valueOf(list.size()), MathContext.DECIMAL64)
                            .movePointRight(6)
                            .setScale(0, java.math.RoundingMode.HALF_EVEN)
                            .longValueExact();
            hourly.put(key, java.util.Arrays.asList((long) list.size(), mean));
        });
        return hourly;
    }

    /** First column as the key, the others as longs (or strings), in row order. */
    private static Map<String, List<Object>> queryRaw(Statement sql, String query) throws SQLException {
        Map<String, List<Object>> result = new TreeMap<>();
        try (ResultSet rs = sql.executeQuery(query)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> values = new ArrayList<>();
                for (int i = 2; i <= columns; i++) {
                    Object value = rs.getObject(i);
                    values.add(value instanceof Number n ? (Object) n.longValue() : value);
                }
                result.put(rs.getString(1), values);
            }
        }
        return result;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<String, List<Long>> query(Statement sql, String query) throws SQLException {
        return (Map) queryRaw(sql, query);
    }
}
