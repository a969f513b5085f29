package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Flink's REST API of a running local run, found by the {@code Flink Web UI:} line it printed. */
final class RestApi {
    private static final Pattern WEB_UI = Pattern.compile("(?m)^Flink Web UI: (http://127.0.0.1:\\d+)$");
    private static final Pattern JOB_ID = Pattern.compile("\"jid\":\"([0-9a-f]{32})\"");

    private RestApi() {}

    /** The body of {@code /jobs/<id>/checkpoints/config} of the run's one job. */
    static String checkpointConfig(String runOutput) throws Exception {
        Matcher webUi = WEB_UI.matcher(runOutput);
        assertThat(webUi.find()).as(runOutput).isTrue();
        Matcher job = JOB_ID.matcher(get(webUi.group(1) + "/jobs/overview"));
        assertThat(job.find()).as("a job on " + webUi.group(1)).isTrue();
        return get(webUi.group(1) + "/jobs/" + job.group(1) + "/checkpoints/config");
    }

    private static String get(String uri) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(uri + ": " + response.body()).isEqualTo(200);
        return response.body();
    }
}
