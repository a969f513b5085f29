package io.periodtables.job.kinesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.Map;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kinesis.source.KinesisStreamsSource;
import org.apache.flink.connector.kinesis.source.config.KinesisStreamsSourceConfigUtil;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.connector.kinesis.source.split.StartingPosition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Our keys as the Kinesis connector reads them, and the source's state as the connector keeps it. */
class KinesisInputTest {
    private static final String ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/readings";

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2026-11-22T13:45:01Z",
                "2026-11-22T13:45:01.1Z",
                "2026-11-22T13:45:01.123Z",
                "2026-11-22T13:45:01.123456789Z",
                "2026-11-22T14:45:01.5+01:00"
            })
    void initialTimestampReachesTheConnectorToTheMillisecond(String timestamp) {
        Configuration source = KinesisInput.sourceConfig(ConfigLoader.fromMap(
                Map.of(
                        "source",
                        "kinesis",
                        "kinesis.stream-arn",
                        ARN,
                        "kinesis.initial-position",
                        "AT_TIMESTAMP",
                        "kinesis.initial-timestamp",
                        timestamp),
                false));

        Date parsed = KinesisStreamsSourceConfigUtil.parseStreamTimestampStartingPosition(source);

        Instant expected = OffsetDateTime.parse(timestamp).toInstant().truncatedTo(ChronoUnit.MILLIS);
        assertThat(parsed.toInstant()).isEqualTo(expected);
    }

    @Test
    void savepointsHoldWhatTheConnectorsOwnSourceHolds() throws Exception {
        PeriodTablesConfig config = ConfigLoader.fromMap(Map.of("source", "kinesis", "kinesis.stream-arn", ARN), false);
        PacedKinesisSource<SinkRecord> ours = (PacedKinesisSource<SinkRecord>)
                KinesisInput.source(config, new KinesisInput.ParsingRecordSchema(config));
        KinesisStreamsSource<String> stock = KinesisStreamsSource.<String>builder()
                .setStreamArn(ARN)
                .setSourceConfig(new Configuration())
                .setDeserializationSchema(new SimpleStringSchema())
                .build();
        KinesisShardSplit split = new KinesisShardSplit(
                ARN,
                "shardId-000000000001",
                StartingPosition.continueFromSequenceNumber(
                        "49590338271490256608559692538361571095921575989136588898"));

        assertThat(ours.getSplitSerializer()).hasSameClassAs(stock.getSplitSerializer());
        assertThat(ours.getSplitSerializer().getVersion())
                .isEqualTo(stock.getSplitSerializer().getVersion());
        assertThat(ours.getEnumeratorCheckpointSerializer()).hasSameClassAs(stock.getEnumeratorCheckpointSerializer());
        assertThat(ours.getEnumeratorCheckpointSerializer().getVersion())
                .isEqualTo(stock.getEnumeratorCheckpointSerializer().getVersion());
        byte[] stored = stock.getSplitSerializer().serialize(split);
        assertThat(ours.getSplitSerializer()
                        .deserialize(stock.getSplitSerializer().getVersion(), stored))
                .isEqualTo(split);
    }

    @Test
    void anEmulatorOnLoopbackGetsItsEndpointAndDummyCredentials() {
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of(
                        "source",
                        "kinesis",
                        "kinesis.stream-arn",
                        ARN,
                        "kinesis.endpoint",
                        "http://127.0.0.1:4567",
                        "aws.region",
                        "eu-west-1"),
                false);

        Configuration source = KinesisInput.sourceConfig(config);

        assertThat(source.toMap())
                .containsEntry("aws.endpoint", "http://127.0.0.1:4567")
                .containsEntry("aws.region", "eu-west-1")
                .containsEntry("aws.credentials.provider", "BASIC")
                .containsEntry("flink.stream.initpos", "LATEST");
    }
}
