package io.periodtables.job;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.input.ParsingGenerator;
import io.periodtables.job.input.ParsingSchema;
import io.periodtables.job.kinesis.KinesisInput;
import io.periodtables.model.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.util.Preconditions;

/**
 * Where the topology's input comes from: a FLIP-27 source that yields parsed records (readings
 * and rejections, see {@link ParsingSchema}), its uid, and whether its event time may be capped
 * at the wall clock. The production sources come from {@link #of}; tests give their own, so
 * that they run exactly the production graph.
 *
 * @param source the source; it parses in its deserializer, so that Flink tracks one watermark per split
 * @param uid the source operator's uid (its split positions live in savepoints under it)
 * @param name the operator's name
 * @param parallelism the source's own parallelism, or {@code -1} for the job's
 * @param capAtWallClock whether the watermark stays behind the wall clock; not for a source
 *     whose event time is synthetic and runs ahead of it
 */
@PublicEvolving
public record InputSource(
        Source<SinkRecord, ?, ?> source, String uid, String name, int parallelism, boolean capAtWallClock) {

    public InputSource {
        Preconditions.checkNotNull(source, "source");
        Preconditions.checkNotNull(uid, "uid");
        Preconditions.checkNotNull(name, "name");
    }

    /** The source {@code config} asks for: Kinesis ({@code source=kinesis}) or the synthetic fleet. */
    public static InputSource of(PeriodTablesConfig config, Clock clock) {
        if (config.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.KINESIS) {
            return new InputSource(
                    KinesisInput.source(config, new KinesisInput.ParsingRecordSchema(config)),
                    "kinesis-source",
                    "Kinesis",
                    -1,
                    true);
        }
        // One subtask: the sequence source would split the index range, and the subtasks' event
        // times would lie far apart. The fleet's event time runs ahead of the wall clock on purpose.
        FleetGenerator fleet = FleetGenerator.of(config, clock.instant());
        return new InputSource(
                FleetGenerator.source(
                        config,
                        new ParsingGenerator(
                                config, "generator", n -> fleet.map(n).getBytes(StandardCharsets.UTF_8))),
                "generator-source",
                "Synthetic fleet",
                1,
                false);
    }

    /** A test's source at parallelism 1 with the wall-clock cap, under the generator's uid. */
    public static InputSource bounded(Source<SinkRecord, ?, ?> source) {
        return new InputSource(source, "generator-source", "Test input", 1, true);
    }
}
