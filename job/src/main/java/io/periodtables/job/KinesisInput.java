package io.periodtables.job;

import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.DynamoDbClients;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kinesis.source.KinesisStreamsSource;
import org.apache.flink.connector.kinesis.source.config.KinesisStreamsSourceConfigConstants;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The Kinesis source: Flink's FLIP-27 {@link KinesisStreamsSource} (connector 4.3.0), configured
 * from our keys. This choice is permanent for savepoints: the legacy {@code FlinkKinesisConsumer}
 * keeps its shard offsets in a different, incompatible state layout.
 */
final class KinesisInput {
    /**
     * The source's own date format for {@code AT_TIMESTAMP} (read with {@code SimpleDateFormat}):
     * always three fraction digits, because {@code SSS} reads ".1" as 1 ms and rejects a missing
     * fraction. Kinesis timestamps have millisecond precision.
     */
    private static final String TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";

    private KinesisInput() {}

    /** The source of {@code config}'s stream, parsing each record in the source ({@link ParsingSchema}). */
    static KinesisStreamsSource<SinkRecord> source(PeriodTablesConfig config) {
        String arn = config.get(ConfigKeys.KINESIS_STREAM_ARN);
        return KinesisStreamsSource.<SinkRecord>builder()
                .setStreamArn(arn)
                .setSourceConfig(sourceConfig(config))
                .setDeserializationSchema(new ParsingSchema(config, "kinesis:" + arn.substring(arn.lastIndexOf('/') + 1)))
                .build();
    }

    /** The connector's configuration from our keys. */
    static Configuration sourceConfig(PeriodTablesConfig config) {
        Configuration source = new Configuration();
        source.setString("aws.region", config.get(ConfigKeys.AWS_REGION));
        config.kinesisEndpoint().ifPresent(endpoint -> {
            source.setString("aws.endpoint", endpoint.toString());
            if (DynamoDbClients.isLoopback(endpoint)) {
                // An emulator on this machine (kinesalite) accepts any credentials.
                source.setString("aws.credentials.provider", "BASIC");
                source.setString("aws.credentials.provider.basic.accesskeyid", "local");
                source.setString("aws.credentials.provider.basic.secretkey", "local");
                source.setString("aws.trust.all.certificates", "true");
            }
        });
        ConfigKeys.InitialPosition position = config.get(ConfigKeys.KINESIS_INITIAL_POSITION);
        source.set(KinesisStreamsSourceConfigConstants.STREAM_INITIAL_POSITION,
                KinesisStreamsSourceConfigConstants.InitialPosition.valueOf(position.name()));
        config.find(ConfigKeys.KINESIS_INITIAL_TIMESTAMP).ifPresent(t -> {
            source.set(KinesisStreamsSourceConfigConstants.STREAM_TIMESTAMP_DATE_FORMAT, TIMESTAMP_FORMAT);
            source.set(KinesisStreamsSourceConfigConstants.STREAM_INITIAL_TIMESTAMP,
                    DateTimeFormatter.ofPattern(TIMESTAMP_FORMAT).withZone(ZoneOffset.UTC).format(t));
        });
        return source;
    }
}
