package io.periodtables.rotation.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.AutoScalingEndpoint;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The open table and Application Auto Scaling: the real SDK client, built as the job builds it
 * ({@code aws.endpoint} pointing at {@link AutoScalingEndpoint}), and dynalite.
 */
class AutoScalingITCase {
    private static final Instant NOW = Instant.parse("2030-03-10T12:30:00Z");
    private static Dynalite local;
    private static AutoScalingEndpoint autoScaling;
    private static DynamoDbAsyncClient client;

    /** When each UpdateTable left this JVM. */
    public static final class UpdateTableSent implements ExecutionInterceptor {
        static final Queue<Long> SENT = new ConcurrentLinkedQueue<>();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if ("UpdateTable".equals(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
                SENT.add(System.nanoTime());
            }
        }
    }

    @BeforeAll
    static void start() {
        local = TestSetup.dynamoDb();
        autoScaling = AutoScalingEndpoint.start();
        client = TestSetup.clients(TestSetup.config(local.endpoint()), UpdateTableSent.class)
                .newAsyncClient(4);
    }

    @AfterAll
    static void stop() {
        client.close();
        autoScaling.close();
    }

    @Test
    void theOpenTableIsRegisteredWithATargetTrackingPolicyAndLeavesAutoScalingBeforeItIsDialedDown() {
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("aas"),
                "tables.period",
                "PT1H",
                "aws.endpoint",
                autoScaling.endpoint().toString(),
                "tables.capacity.autoscaling",
                "true",
                "tables.capacity.current.min",
                "5/4",
                "tables.capacity.current.max",
                "500/400",
                "tables.capacity.target-utilization",
                "0.6");
        Period period = config.calendar().periodOf(NOW);
        String table = config.naming().periodTable(period);
        String resource = "table/" + table;
        try (TableManager manager = new TableManager(
                config,
                client,
                false,
                TestSetup.fastSettings(),
                Clock.systemUTC(),
                AutoScaling.of(config).orElseThrow())) {
            manager.ensure(period, Capacity.provisioned(100, 300)).join();

            List<AutoScalingEndpoint.Call> opened = autoScaling.calls();
            assertThat(opened)
                    .extracting(AutoScalingEndpoint.Call::operation)
                    .containsExactly(
                            "RegisterScalableTarget", "PutScalingPolicy", "RegisterScalableTarget", "PutScalingPolicy");
            assertThat(opened)
                    .extracting(AutoScalingEndpoint.Call::target)
                    .containsExactly(
                            resource + " / dynamodb:table:WriteCapacityUnits",
                                    resource + " / dynamodb:table:WriteCapacityUnits",
                            resource + " / dynamodb:table:ReadCapacityUnits",
                                    resource + " / dynamodb:table:ReadCapacityUnits");
            assertThat(opened.get(0).body().path("ServiceNamespace").asText()).isEqualTo("dynamodb");
            assertThat(opened.get(0).body().path("MinCapacity").asInt()).isEqualTo(5);
            assertThat(opened.get(0).body().path("MaxCapacity").asInt()).isEqualTo(500);
            assertThat(opened.get(2).body().path("MinCapacity").asInt()).isEqualTo(4);
            assertThat(opened.get(2).body().path("MaxCapacity").asInt()).isEqualTo(400);
            assertThat(opened.get(1).body().path("PolicyType").asText()).isEqualTo("TargetTrackingScaling");
            assertThat(opened.get(1)
                            .body()
                            .at("/TargetTrackingScalingPolicyConfiguration/TargetValue")
                            .asDouble())
                    .isEqualTo(60.0);
            assertThat(opened.get(1)
                            .body()
                            .at("/TargetTrackingScalingPolicyConfiguration/PredefinedMetricSpecification"
                                    + "/PredefinedMetricType")
                            .asText())
                    .isEqualTo("DynamoDBWriteCapacityUtilization");
            assertThat(opened.get(3)
                            .body()
                            .at("/TargetTrackingScalingPolicyConfiguration/PredefinedMetricSpecification"
                                    + "/PredefinedMetricType")
                            .asText())
                    .isEqualTo("DynamoDBReadCapacityUtilization");
            assertThat(autoScaling.registered()).hasSize(2);

            UpdateTableSent.SENT.clear();
            ManagedTable lowered =
                    manager.setTier(table, CapacityTier.PREVIOUS).join().orElseThrow();

            assertThat(lowered.capacity()).isEqualTo(Capacity.provisioned(1, 100));
            List<AutoScalingEndpoint.Call> closed =
                    autoScaling.calls().subList(4, autoScaling.calls().size());
            assertThat(closed)
                    .extracting(AutoScalingEndpoint.Call::operation)
                    .containsExactly("DeregisterScalableTarget", "DeregisterScalableTarget");
            assertThat(autoScaling.registered()).isEmpty();
            assertThat(UpdateTableSent.SENT)
                    .singleElement()
                    .satisfies(sent -> assertThat(closed)
                            .allSatisfy(deregister ->
                                    assertThat(deregister.nanoTime()).isLessThan(sent)));
        }
    }

    @Test
    void aTableOpenedAtALowerTierIsNotRegistered() {
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("aas"),
                "tables.period",
                "PT1H",
                "aws.endpoint",
                autoScaling.endpoint().toString(),
                "tables.capacity.autoscaling",
                "true");
        Period period = config.calendar().periodOf(NOW);
        int before = autoScaling.calls().size();
        try (TableManager manager = new TableManager(
                config,
                client,
                false,
                TestSetup.fastSettings(),
                Clock.systemUTC(),
                AutoScaling.of(config).orElseThrow())) {
            manager.ensure(period, config.effectiveCapacity(CapacityTier.OLDER)).join();
        }
        assertThat(autoScaling.calls()).hasSize(before);
    }
}
