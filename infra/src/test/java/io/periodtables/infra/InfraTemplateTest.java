package io.periodtables.infra;

import static io.periodtables.infra.PeriodTablesTemplate.EVERYTHING_SET;
import static io.periodtables.infra.PeriodTablesTemplate.MINIMAL;
import static io.periodtables.infra.PeriodTablesTemplate.statements;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.periodtables.infra.PeriodTablesTemplate.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The service role of {@code infra/period-tables.yaml} grants least privilege: every action
 * scoped to the stream, the tables of the prefix, the jar, the log group or the key it needs;
 * {@code *} only for the two actions that have no resource scope; table deletion only when
 * retention is configured. Checked on the raw template and on stacks evaluated with minimal and
 * with every optional parameter set.
 */
class InfraTemplateTest {
    private static final String TABLES_OF_PREFIX =
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${TablePrefix}_*";
    private static final String WRITERS_TABLE =
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${TablePrefix}_writers";
    private static final Set<String> WRITERS_ACTIONS = Set.of("dynamodb:PutItem", "dynamodb:Query");
    private static final String LATEST_TABLE =
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${TablePrefix}_latest";
    private static final String ROLLUPS_TABLES =
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${TablePrefix}_rollups_*";
    /** Actions without a resource scope: ListTables, PutMetricData, and the VPC policy of the MSF guide. */
    private static final Set<String> UNSCOPED_ACTIONS = Set.of(
            "dynamodb:ListTables",
            "cloudwatch:PutMetricData",
            "ec2:DescribeVpcs",
            "ec2:DescribeSubnets",
            "ec2:DescribeSecurityGroups",
            "ec2:DescribeDhcpOptions",
            "ec2:CreateNetworkInterface",
            "ec2:CreateNetworkInterfacePermission",
            "ec2:DescribeNetworkInterfaces",
            "ec2:DeleteNetworkInterface");

    private static final Set<String> TABLE_ACTIONS = Set.of(
            "dynamodb:CreateTable",
            "dynamodb:DescribeTable",
            "dynamodb:UpdateTable",
            "dynamodb:UpdateTimeToLive",
            "dynamodb:DescribeTimeToLive",
            "dynamodb:TagResource",
            "dynamodb:ListTagsOfResource",
            "dynamodb:BatchWriteItem");

    static Stream<Arguments> stacks() {
        return Stream.of(
                Arguments.of("minimal", MINIMAL),
                Arguments.of("everything set", EVERYTHING_SET),
                Arguments.of("in a VPC", PeriodTablesTemplate.IN_VPC));
    }

    @Test
    void inAVpcTheApplicationGetsItsSubnetsAndGroupsAndItsRoleMayMakeNetworkInterfaces() {
        JsonNode vpc = PeriodTablesTemplate.stack(PeriodTablesTemplate.IN_VPC)
                .properties("Application")
                .path("ApplicationConfiguration")
                .path("VpcConfigurations");
        assertThat(vpc).hasSize(1);
        assertThat(PeriodTablesTemplate.texts(vpc.get(0).path("SubnetIds")))
                .containsExactly("subnet-0a1", "subnet-0b2");
        assertThat(PeriodTablesTemplate.texts(vpc.get(0).path("SecurityGroupIds")))
                .containsExactly("sg-0c3");
        assertThat(statements(PeriodTablesTemplate.IN_VPC))
                .filteredOn(st -> "UseVpc".equals(st.sid()))
                .singleElement()
                .satisfies(st -> assertThat(st.actions()).contains("ec2:CreateNetworkInterface"));

        assertThat(PeriodTablesTemplate.stack(MINIMAL)
                        .properties("Application")
                        .path("ApplicationConfiguration")
                        .has("VpcConfigurations"))
                .isFalse();
        assertThat(statements(MINIMAL)).noneSatisfy(st -> assertThat(st.sid()).isEqualTo("UseVpc"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void noStatementGrantsAWildcardActionOrDenyLogic(String name, Map<String, String> parameters) {
        for (Statement s : statements(parameters)) {
            assertThat(s.effect()).as(s.sid()).isEqualTo("Allow");
            assertThat(s.node().has("NotAction") || s.node().has("NotResource"))
                    .as(s.sid())
                    .isFalse();
            assertThat(s.actions()).as(s.sid()).isNotEmpty().allSatisfy(action -> {
                assertThat(action).matches("[a-z0-9-]+:[A-Za-z]+\\*?");
                assertThat(action).doesNotEndWith(":*");
            });
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void onlyListTablesAndPutMetricDataApplyToAllResources(String name, Map<String, String> parameters) {
        for (Statement s : statements(parameters)) {
            assertThat(s.resources()).as(s.sid()).isNotEmpty();
            if (s.resources().contains("*")) {
                assertThat(s.actions()).as(s.sid()).isSubsetOf(UNSCOPED_ACTIONS);
            } else {
                assertThat(s.actions()).as(s.sid()).doesNotContainAnyElementsOf(UNSCOPED_ACTIONS);
            }
        }
    }

    @Test
    void tableActionsAreScopedToTablesOfThePrefixInTheTemplate() {
        List<JsonNode> tableStatements = PeriodTablesTemplate.rawStatements().stream()
                .map(InfraTemplateTest::unwrapIf)
                .filter(s -> PeriodTablesTemplate.texts(s.get("Action")).stream()
                        .anyMatch(a -> a.startsWith("dynamodb:") && !a.equals("dynamodb:ListTables")))
                .toList();
        assertThat(tableStatements).hasSize(5).allSatisfy(s -> {
            List<String> actions = PeriodTablesTemplate.texts(s.get("Action"));
            assertThat(s.path("Resource").path("Fn::Sub").asText())
                    .isEqualTo(
                            actions.equals(List.of("dynamodb:PutItem"))
                                    ? s.path("Sid").asText().equals("KeepRollupBuckets") ? ROLLUPS_TABLES : LATEST_TABLE
                                    : actions.stream().anyMatch(WRITERS_ACTIONS::contains)
                                            ? WRITERS_TABLE
                                            : TABLES_OF_PREFIX);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void tableActionsOfAStackAreScopedToItsPrefix(String name, Map<String, String> parameters) {
        String prefix = parameters.getOrDefault("TablePrefix", "readings");
        for (Statement s : statements(parameters)) {
            if (s.actions().stream().anyMatch(a -> a.startsWith("dynamodb:") && !UNSCOPED_ACTIONS.contains(a))) {
                assertThat(s.actions()).as(s.sid()).allMatch(a -> a.startsWith("dynamodb:"));
                String tables = s.actions().equals(List.of("dynamodb:PutItem"))
                        ? s.sid().equals("KeepRollupBuckets") ? "_rollups_*" : "_latest"
                        : s.actions().stream().anyMatch(WRITERS_ACTIONS::contains) ? "_writers" : "_*";
                assertThat(s.resources())
                        .as(s.sid())
                        .containsExactly("arn:aws:dynamodb:eu-west-1:123456789012:table/" + prefix + tables);
            }
        }
    }

    @Test
    void tableActionsAreExactlyTheCallsTheJobMakes() {
        Set<String> expected = new TreeSet<>(TABLE_ACTIONS);
        expected.addAll(WRITERS_ACTIONS);
        expected.add("dynamodb:ListTables");
        assertThat(actionsOf(MINIMAL, "dynamodb:")).isEqualTo(expected);
        expected.add("dynamodb:DeleteTable");
        assertThat(actionsOf(EVERYTHING_SET, "dynamodb:")).isEqualTo(expected);
    }

    @Test
    void deleteTableIsInItsOwnStatementThatExistsOnlyWithRetention() {
        List<JsonNode> withDelete = PeriodTablesTemplate.rawStatements().stream()
                .filter(s ->
                        PeriodTablesTemplate.texts(unwrapIf(s).get("Action")).contains("dynamodb:DeleteTable"))
                .toList();
        assertThat(withDelete).hasSize(1);
        JsonNode conditional = withDelete.get(0).path("Fn::If");
        assertThat(conditional.get(0).asText()).isEqualTo("HasTableRetention");
        assertThat(PeriodTablesTemplate.texts(conditional.get(1).get("Action")))
                .containsExactly("dynamodb:DeleteTable");
        assertThat(conditional.get(2).path("Ref").asText()).isEqualTo("AWS::NoValue");

        assertThat(PeriodTablesTemplate.stack(MINIMAL).condition("HasTableRetention"))
                .isFalse();
        assertThat(actionsOf(MINIMAL, "dynamodb:")).doesNotContain("dynamodb:DeleteTable");
        assertThat(PeriodTablesTemplate.stack(Map.of("CodeBucket", "code-bucket", "TableRetention", "P400D"))
                        .condition("HasTableRetention"))
                .isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void kinesisReadActionsApplyToTheStreamOnly(String name, Map<String, String> parameters) {
        List<Statement> kinesis = statements(parameters).stream()
                .filter(s -> s.actions().stream().anyMatch(a -> a.startsWith("kinesis:")))
                .toList();
        assertThat(kinesis).hasSize(1);
        assertThat(kinesis.get(0).actions())
                .containsExactlyInAnyOrder("kinesis:ListShards", "kinesis:GetShardIterator", "kinesis:GetRecords");
        assertThat(kinesis.get(0).resources()).containsExactly(PeriodTablesTemplate.STREAM_ARN);
    }

    @Test
    void kmsIsGrantedOnTheConfiguredKeyOnlyAndOnlyThroughDynamoDb() {
        assertThat(actionsOf(MINIMAL, "kms:")).isEmpty();
        List<Statement> kms = statements(EVERYTHING_SET).stream()
                .filter(s -> s.actions().stream().anyMatch(a -> a.startsWith("kms:")))
                .toList();
        assertThat(kms).hasSize(1);
        assertThat(kms.get(0).actions())
                .containsExactlyInAnyOrder(
                        "kms:DescribeKey", "kms:CreateGrant", "kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*");
        assertThat(kms.get(0).resources()).containsExactly(PeriodTablesTemplate.KMS_KEY);
        assertThat(kms.get(0)
                        .condition()
                        .path("StringEquals")
                        .path("kms:ViaService")
                        .asText())
                .isEqualTo("dynamodb.eu-west-1.amazonaws.com");
    }

    @Test
    void autoScalingOfTheOpenTableIsGrantedForDynamoDbTableCapacityOfThePrefixOnly() {
        List<Statement> all = statements(MINIMAL);
        Statement scaling = only(all, "application-autoscaling:RegisterScalableTarget");
        assertThat(scaling.actions())
                .containsExactlyInAnyOrder(
                        "application-autoscaling:RegisterScalableTarget",
                        "application-autoscaling:PutScalingPolicy",
                        "application-autoscaling:DeregisterScalableTarget");
        assertThat(scaling.resources())
                .containsExactly(
                        "arn:aws:application-autoscaling:eu-west-1:123456789012:scalable-target/*",
                        "arn:aws:autoscaling:eu-west-1:123456789012:scalingPolicy:*:resource/dynamodb/table/readings_*");
        assertThat(scaling.condition()
                        .path("StringEquals")
                        .path("application-autoscaling:service-namespace")
                        .asText())
                .isEqualTo("dynamodb");
        assertThat(PeriodTablesTemplate.texts(
                        scaling.condition().path("StringEquals").path("application-autoscaling:scalable-dimension")))
                .containsExactly("dynamodb:table:WriteCapacityUnits", "dynamodb:table:ReadCapacityUnits");
        assertThat(only(all, "cloudwatch:PutMetricAlarm").resources())
                .containsExactly("arn:aws:cloudwatch:eu-west-1:123456789012:alarm:TargetTracking-table/readings_*");
        Statement linkedRole = only(all, "iam:CreateServiceLinkedRole");
        assertThat(linkedRole.resources())
                .containsExactly(
                        "arn:aws:iam::123456789012:role/aws-service-role/"
                                + "dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable");
        assertThat(linkedRole
                        .condition()
                        .path("StringEquals")
                        .path("iam:AWSServiceName")
                        .asText())
                .isEqualTo("dynamodb.application-autoscaling.amazonaws.com");

        // On-demand tables (EVERYTHING_SET) and TableAutoScaling=false have nothing to scale.
        assertThat(actionsOf(EVERYTHING_SET, "application-autoscaling:")).isEmpty();
        assertThat(actionsOf(
                        Map.of("CodeBucket", "code-bucket", "TableAutoScaling", "false"), "application-autoscaling:"))
                .isEmpty();
        assertThat(actionsOf(Map.of("CodeBucket", "code-bucket", "TableAutoScaling", "false"), "iam:"))
                .isEmpty();
    }

    @Test
    void metricsArePublishedOnlyToTheServiceNamespace() {
        Statement metrics = only(statements(MINIMAL), "cloudwatch:PutMetricData");
        assertThat(metrics.condition()
                        .path("StringEquals")
                        .path("cloudwatch:namespace")
                        .asText())
                .isEqualTo("AWS/KinesisAnalytics");
    }

    @Test
    void logsAreWrittenOnlyToTheApplicationsLogStream() {
        String group = "arn:aws:logs:eu-west-1:123456789012:log-group:";
        List<Statement> all = statements(MINIMAL);
        assertThat(only(all, "logs:DescribeLogGroups").resources()).containsExactly(group + "*");
        assertThat(only(all, "logs:DescribeLogStreams").resources())
                .containsExactly(group + PeriodTablesTemplate.LOG_GROUP + ":log-stream:*");
        assertThat(only(all, "logs:PutLogEvents").resources())
                .containsExactly(
                        group + PeriodTablesTemplate.LOG_GROUP + ":log-stream:" + PeriodTablesTemplate.LOG_STREAM);
        assertThat(actionsOf(MINIMAL, "logs:"))
                .containsExactly("logs:DescribeLogGroups", "logs:DescribeLogStreams", "logs:PutLogEvents");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void s3ReadsOnlyTheJarObjectBesideTheArchive(String name, Map<String, String> parameters) {
        String key = parameters.getOrDefault("CodeKey", "period-tables/period-tables-job.jar");
        List<Statement> outsideArchive = statements(parameters).stream()
                .filter(s -> s.actions().stream().anyMatch(a -> a.startsWith("s3:")))
                .filter(s -> s.resources().stream().noneMatch(r -> r.startsWith("arn:aws:s3:::archive-bucket")))
                .toList();
        Statement code = only(outsideArchive, "s3:GetObject");
        assertThat(code.actions()).containsExactlyInAnyOrder("s3:GetObject", "s3:GetObjectVersion");
        assertThat(code.resources()).containsExactly("arn:aws:s3:::code-bucket/" + key);
        assertThat(outsideArchive).containsExactly(code);
    }

    @Test
    void theArchiveIsWrittenAndListedOnlyUnderItsPrefixAndOnlyWhenConfigured() {
        assertThat(PeriodTablesTemplate.stack(MINIMAL).condition("HasArchive")).isFalse();
        assertThat(actionsOf(MINIMAL, "s3:")).containsExactly("s3:GetObject", "s3:GetObjectVersion");

        List<Statement> all = statements(EVERYTHING_SET);
        Statement objects = only(all, "s3:PutObject");
        assertThat(objects.actions()).containsExactlyInAnyOrder("s3:GetObject", "s3:PutObject", "s3:DeleteObject");
        assertThat(objects.resources()).containsExactly("arn:aws:s3:::archive-bucket/fleet/archive/*");
        Statement listing = only(all, "s3:ListBucket");
        assertThat(listing.actions()).containsExactly("s3:ListBucket");
        assertThat(listing.resources()).containsExactly("arn:aws:s3:::archive-bucket");
        assertThat(PeriodTablesTemplate.texts(
                        listing.condition().path("StringLike").get("s3:prefix")))
                .containsExactly("fleet/archive", "fleet/archive/*");
    }

    @Test
    void onlyThisAccountsApplicationOfThisNameCanAssumeTheRole() {
        JsonNode trust =
                PeriodTablesTemplate.stack(MINIMAL).properties("ServiceRole").path("AssumeRolePolicyDocument");
        assertThat(trust.path("Statement")).hasSize(1);
        JsonNode statement = trust.path("Statement").get(0);
        assertThat(statement.path("Principal").path("Service").asText()).isEqualTo("kinesisanalytics.amazonaws.com");
        assertThat(statement.path("Action").asText()).isEqualTo("sts:AssumeRole");
        assertThat(statement
                        .path("Condition")
                        .path("StringEquals")
                        .path("aws:SourceAccount")
                        .asText())
                .isEqualTo("123456789012");
        assertThat(statement
                        .path("Condition")
                        .path("ArnEquals")
                        .path("aws:SourceArn")
                        .asText())
                .isEqualTo("arn:aws:kinesisanalytics:eu-west-1:123456789012:application/period-tables");
    }

    @Test
    void theRoleHasNoManagedPoliciesBesideItsOwnStatements() {
        JsonNode role =
                PeriodTablesTemplate.raw().path("Resources").path("ServiceRole").path("Properties");
        assertThat(role.has("ManagedPolicyArns")).isFalse();
        assertThat(role.has("PermissionsBoundary")).isFalse();
        PeriodTablesTemplate.raw()
                .path("Resources")
                .forEach(resource -> assertThat(resource.path("Type").asText())
                        .isNotIn("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"));
    }

    private static JsonNode unwrapIf(JsonNode statement) {
        return statement.has("Fn::If") ? statement.get("Fn::If").get(1) : statement;
    }

    private static Set<String> actionsOf(Map<String, String> parameters, String service) {
        Set<String> actions = new TreeSet<>();
        statements(parameters)
                .forEach(s ->
                        s.actions().stream().filter(a -> a.startsWith(service)).forEach(actions::add));
        return actions;
    }

    private static Statement only(List<Statement> statements, String action) {
        List<Statement> matching =
                statements.stream().filter(s -> s.actions().contains(action)).toList();
        assertThat(matching).as(action).hasSize(1);
        return matching.get(0);
    }
}
