package io.periodtables.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The template {@code infra/period-tables.yaml} as the tests see it: raw (long-form intrinsic
 * functions) and evaluated for a stack's parameters in account {@value TemplateEvaluator#ACCOUNT},
 * region {@value TemplateEvaluator#REGION}.
 */
final class PeriodTablesTemplate {
    /** Surefire runs in the module's folder. */
    static final Path FILE = Path.of("period-tables.yaml");

    static final String STREAM_ARN = "arn:aws:kinesis:eu-west-1:123456789012:stream/period-tables-readings";
    static final String ROLE_ARN = "arn:aws:iam::123456789012:role/period-tables-ServiceRole-1A2B3C";
    static final String LOG_GROUP = "/aws/kinesis-analytics/period-tables";
    static final String LOG_STREAM = "kinesis-analytics-log-stream";
    static final String KMS_KEY = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

    /** The parameters a user must give; everything else at its default. */
    static final Map<String, String> MINIMAL = Map.of("CodeBucket", "code-bucket");

    /** Every optional feature switched on. */
    static final Map<String, String> EVERYTHING_SET = Map.ofEntries(
            Map.entry("CodeBucket", "code-bucket"),
            Map.entry("CodeKey", "releases/period-tables-job-0.2.0.jar"),
            Map.entry("CodeObjectVersion", "3HL4kqtJlcpXroDTDmJ-rmSpXd3dIbrHY"),
            Map.entry("StreamMode", "PROVISIONED"),
            Map.entry("StreamShardCount", "8"),
            Map.entry("KinesisInitialPosition", "AT_TIMESTAMP"),
            Map.entry("KinesisInitialTimestamp", "2026-11-01T00:00:00Z"),
            Map.entry("TablePrefix", "fleet.eu-1"),
            Map.entry("TablePeriod", "PT1H"),
            Map.entry("TableShards", "8"),
            Map.entry("TableBilling", "PAY_PER_REQUEST"),
            Map.entry("TableTtl", "P90D"),
            Map.entry("TableRetention", "P30D"),
            Map.entry("TableSseKmsKeyArn", KMS_KEY),
            Map.entry("TableDeletionProtection", "true"),
            Map.entry("RotationLead", "PT10M"),
            Map.entry("LoweringStallAfter", "PT45M"),
            Map.entry("AllowedLateness", "PT2M"),
            Map.entry("SnapshotName", "before-0.2.0"),
            Map.entry("RestoreType", "RESTORE_FROM_CUSTOM_SNAPSHOT"),
            Map.entry("AllowNonRestoredState", "true"),
            Map.entry("ArchiveBucket", "archive-bucket"),
            Map.entry("ArchivePrefix", "fleet/archive"),
            Map.entry("ArchiveColumns", "temperature:double,status:string"),
            Map.entry("RollupsEvery", "PT1M,PT15M"),
            Map.entry("SinkMaxInFlight", "8"),
            Map.entry("TableClassClosed", "STANDARD_INFREQUENT_ACCESS"),
            Map.entry("LimitsMaxTables", "2000"),
            Map.entry("LimitsMaxTableUnits", "50000"));

    /** The application in two private subnets of a VPC. */
    static final Map<String, String> IN_VPC =
            Map.of("CodeBucket", "code-bucket", "SubnetIds", "subnet-0a1,subnet-0b2", "SecurityGroupIds", "sg-0c3");

    private static JsonNode raw;

    private PeriodTablesTemplate() {}

    /** The template with intrinsic functions in long form, not evaluated. */
    static synchronized JsonNode raw() {
        if (raw == null) {
            try {
                raw = CloudFormationYaml.read(FILE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return raw;
    }

    /** The template evaluated for a stack with these parameters. */
    static TemplateEvaluator stack(Map<String, String> parameters) {
        Map<String, String> refs = new HashMap<>();
        refs.put("Stream", "period-tables-readings");
        refs.put("LogGroup", LOG_GROUP);
        refs.put("LogStream", LOG_STREAM);
        refs.put("ServiceRole", "period-tables-ServiceRole-1A2B3C");
        refs.put("Application", "period-tables");
        Map<String, String> attributes = Map.of("Stream.Arn", STREAM_ARN, "ServiceRole.Arn", ROLE_ARN);
        return new TemplateEvaluator(raw(), parameters, refs, attributes);
    }

    /** One statement of the service role's permission policies. */
    record Statement(
            String sid,
            String effect,
            List<String> actions,
            List<String> resources,
            JsonNode condition,
            JsonNode node) {}

    /** The service role's permission statements as a stack with {@code parameters} gets them. */
    static List<Statement> statements(Map<String, String> parameters) {
        List<Statement> statements = new ArrayList<>();
        for (JsonNode policy : stack(parameters).properties("ServiceRole").path("Policies")) {
            for (JsonNode s : policy.path("PolicyDocument").path("Statement")) {
                statements.add(new Statement(
                        s.path("Sid").asText(null),
                        s.path("Effect").asText(),
                        texts(s.get("Action")),
                        texts(s.get("Resource")),
                        s.get("Condition"),
                        s));
            }
        }
        return statements;
    }

    /** The raw statement nodes, {@code Fn::If}-wrapped ones included as they are. */
    static List<JsonNode> rawStatements() {
        List<JsonNode> statements = new ArrayList<>();
        for (JsonNode policy :
                raw().path("Resources").path("ServiceRole").path("Properties").path("Policies")) {
            policy.path("PolicyDocument").path("Statement").forEach(statements::add);
        }
        return statements;
    }

    /** A string or a list of strings as a list. */
    static List<String> texts(JsonNode node) {
        List<String> texts = new ArrayList<>();
        if (node == null) {
            return texts;
        }
        if (node.isArray()) {
            node.forEach(n -> texts.add(n.asText()));
        } else {
            texts.add(node.asText());
        }
        return texts;
    }
}
