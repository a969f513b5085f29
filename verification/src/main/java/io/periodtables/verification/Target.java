package io.periodtables.verification;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.model.GetCallerIdentityResponse;

/**
 * Where a run goes: AWS in a region with the default credential chain, or Kinesis and DynamoDB
 * endpoints (the emulators; {@code --emulators} starts dynalite and kinesalite behind their fidelity
 * layers for the run). Holds the clients {@code verify} itself calls with; the job builds its own
 * from {@link #jobSettings()}.
 */
final class Target implements AutoCloseable {
    private final String region;
    private final URI dynamoDbEndpoint;
    private final URI kinesisEndpoint;
    private final AutoCloseable[] started;
    final DynamoDbClient dynamo;
    final KinesisClient kinesis;

    private Target(String region, URI dynamoDbEndpoint, URI kinesisEndpoint, AutoCloseable... started) {
        this.region = region;
        this.dynamoDbEndpoint = dynamoDbEndpoint;
        this.kinesisEndpoint = kinesisEndpoint;
        this.started = started;
        if (kinesisEndpoint != null && DynamoDbClients.isLoopback(kinesisEndpoint)) {
            // kinesalite answers in JSON: the SDK's Kinesis clients (the job's too) must not ask for CBOR,
            // as Kinesalite.start() sets for an emulator started in this JVM
            System.setProperty("aws.cborEnabled", "false");
        }
        this.dynamo = configure(DynamoDbClient.builder(), dynamoDbEndpoint).build();
        this.kinesis = configure(KinesisClient.builder(), kinesisEndpoint).build();
    }

    /** The target the options name; {@code --emulators} starts the emulators here. */
    static Target of(VerifyOptions options) {
        if (options.emulators()) {
            Dynalite dynalite = Dynalite.start();
            Kinesalite kinesalite;
            try {
                kinesalite = Kinesalite.start();
            } catch (RuntimeException e) {
                dynalite.close();
                throw e;
            }
            return new Target(Dynalite.REGION.id(), dynalite.endpoint(), kinesalite.endpoint(), kinesalite, dynalite);
        }
        String region = options.region() != null ? options.region() : defaultRegion();
        return new Target(region, options.dynamoDbEndpoint(), options.kinesisEndpoint());
    }

    /** AWS's own endpoints (no endpoint option given): the caller's account. */
    boolean onAws() {
        return dynamoDbEndpoint == null && kinesisEndpoint == null;
    }

    String region() {
        return region;
    }

    /** Who the run acts as, one line: the account and identity (STS), or the endpoints of the emulators. */
    String identity() {
        if (!onAws()) {
            return "no AWS account, DynamoDB at " + dynamoDbEndpoint + " and Kinesis at " + kinesisEndpoint
                    + (started.length > 0 ? " (dynalite and kinesalite, started for this run)" : "");
        }
        try (StsClient sts = configure(StsClient.builder(), null).build()) {
            GetCallerIdentityResponse me =
                    PermissionDenied.call("sts:GetCallerIdentity", () -> sts.getCallerIdentity());
            return "account " + me.account() + " as " + me.arn();
        }
    }

    /** The job's settings that point it where this target is. */
    Map<String, String> jobSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(ConfigKeys.AWS_REGION.name(), region);
        if (dynamoDbEndpoint != null) {
            settings.put(ConfigKeys.DYNAMODB_ENDPOINT.name(), dynamoDbEndpoint.toString());
        }
        if (kinesisEndpoint != null) {
            settings.put(ConfigKeys.KINESIS_ENDPOINT.name(), kinesisEndpoint.toString());
        }
        return settings;
    }

    private <B extends AwsClientBuilder<B, ?>> B configure(B builder, URI endpoint) {
        builder.region(Region.of(region));
        if (builder instanceof software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder<?, ?> sync) {
            sync.httpClientBuilder(ApacheHttpClient.builder().socketTimeout(Duration.ofMinutes(1)));
        }
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
            if (DynamoDbClients.isLoopback(endpoint)) {
                // an emulator on this machine takes any credentials, as the job's clients do
                builder.credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
            }
        }
        return builder;
    }

    private static String defaultRegion() {
        try {
            return new DefaultAwsRegionProviderChain().getRegion().id();
        } catch (RuntimeException e) {
            return Region.US_EAST_1.id();
        }
    }

    @Override
    public void close() {
        dynamo.close();
        kinesis.close();
        for (AutoCloseable emulator : started) {
            try {
                emulator.close();
            } catch (Exception e) {
                // an emulator that does not stop ends with this process (its standard input closes)
            }
        }
    }
}
