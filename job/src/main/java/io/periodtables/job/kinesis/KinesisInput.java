package io.periodtables.job.kinesis;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.job.input.ParsingSchema;
import io.periodtables.model.SinkRecord;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kinesis.source.KinesisStreamsSource;
import org.apache.flink.connector.kinesis.source.config.KinesisStreamsSourceConfigConstants;
import org.apache.flink.util.Collector;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.KinesisClientBuilder;
import software.amazon.awssdk.services.kinesis.model.Record;

/**
 * The Kinesis source, configured from our keys: {@link PacedKinesisSource}, which is Flink's FLIP-27
 * {@link KinesisStreamsSource} (connector 4.3.0) with a reader that pauses empty shards. This
 * choice is permanent for savepoints: the legacy {@code FlinkKinesisConsumer} keeps its shard
 * offsets in a different, incompatible state layout.
 */
public final class KinesisInput {
    /**
     * The source's own date format for {@code AT_TIMESTAMP} (read with {@code SimpleDateFormat}):
     * always three fraction digits, because {@code SSS} reads ".1" as 1 ms and rejects a missing
     * fraction. Kinesis timestamps have millisecond precision.
     */
    private static final String TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";

    private KinesisInput() {}

    /** The source of the stream {@code kinesis.stream-arn}, its records turned into elements by {@code schema}. */
    public static <T> Source<T, ?, ?> source(PeriodTablesConfig config, KinesisRecordSchema<T> schema) {
        Configuration sourceConfig = sourceConfig(config);
        KinesisStreamsSource<String> stock = KinesisStreamsSource.<String>builder()
                .setStreamArn(config.get(ConfigKeys.KINESIS_STREAM_ARN))
                .setSourceConfig(sourceConfig)
                .setDeserializationSchema(new SimpleStringSchema()) // unused: our reader reads
                .build();
        return new PacedKinesisSource<>(
                stock, sourceConfig, schema, () -> readerClient(config), () -> kinesisClient(config));
    }

    /** The connector's configuration from our keys (its enumerator lists shards with it). */
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
        source.set(
                KinesisStreamsSourceConfigConstants.STREAM_INITIAL_POSITION,
                KinesisStreamsSourceConfigConstants.InitialPosition.valueOf(position.name()));
        config.find(ConfigKeys.KINESIS_INITIAL_TIMESTAMP).ifPresent(t -> {
            source.set(KinesisStreamsSourceConfigConstants.STREAM_TIMESTAMP_DATE_FORMAT, TIMESTAMP_FORMAT);
            source.set(
                    KinesisStreamsSourceConfigConstants.STREAM_INITIAL_TIMESTAMP,
                    DateTimeFormatter.ofPattern(TIMESTAMP_FORMAT)
                            .withZone(ZoneOffset.UTC)
                            .format(t));
        });
        return source;
    }

    /**
     * A Kinesis client: region, endpoint override, the default credential chain (dummy credentials
     * for an emulator on this machine), and an explicit HTTP client.
     */
    public static KinesisClient kinesisClient(PeriodTablesConfig config) {
        return builder(config).build();
    }

    /**
     * The client our shard reader reads with: as {@link #kinesisClient}, without the SDK's retries,
     * because {@link PacedShardSplitReader} retries a refused or failed read itself, pausing only
     * that shard while the SDK would block every shard of the subtask in its backoff.
     */
    static KinesisClient readerClient(PeriodTablesConfig config) {
        return builder(config)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    private static KinesisClientBuilder builder(PeriodTablesConfig config) {
        KinesisClientBuilder builder = KinesisClient.builder()
                .region(Region.of(config.get(ConfigKeys.AWS_REGION)))
                .httpClientBuilder(ApacheHttpClient.builder());
        config.kinesisEndpoint().ifPresent(endpoint -> {
            builder.endpointOverride(endpoint);
            if (DynamoDbClients.isLoopback(endpoint)) {
                builder.credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
            }
        });
        return builder;
    }

    /**
     * Parses each record in the source ({@link ParsingSchema}), with
     * {@code kinesis:<stream>/<shardId>/<sequenceNumber>} as its origin.
     */
    public static final class ParsingRecordSchema implements KinesisRecordSchema<SinkRecord> {
        private static final long serialVersionUID = 1L;
        private final ParsingSchema parsing;

        public ParsingRecordSchema(PeriodTablesConfig config) {
            this.parsing = new ParsingSchema(config, "kinesis");
        }

        @Override
        public void open(DeserializationSchema.InitializationContext context) {
            parsing.open(context);
        }

        @Override
        public void deserialize(Record record, String streamArn, String shardId, Collector<SinkRecord> out) {
            String stream = streamArn.substring(streamArn.lastIndexOf('/') + 1);
            parsing.parse(
                    record.data().asByteArray(),
                    "kinesis:" + stream + "/" + shardId + "/" + record.sequenceNumber(),
                    out);
        }

        @Override
        public TypeInformation<SinkRecord> getProducedType() {
            return TypeInformation.of(SinkRecord.class);
        }
    }
}
