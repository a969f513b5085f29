package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

class KinesaliteITCase {

    @Test
    void recordsPutByArnAreReadBackByArn() {
        try (Kinesalite kinesalite = Kinesalite.start();
                KinesisClient kinesis = kinesalite.kinesisClient()) {
            String arn = kinesalite.createStream("readings", 2);
            assertThat(arn)
                    .isEqualTo("arn:aws:kinesis:us-east-1:000000000000:stream/readings")
                    .isEqualTo(Kinesalite.streamArn("readings"));

            List<String> sent = IntStream.range(0, 20)
                    .mapToObj(i -> "{\"reading\":" + i + "}")
                    .toList();
            PutRecordsResponse put = kinesis.putRecords(b -> b.streamARN(arn)
                    .records(sent.stream()
                            .map(data -> PutRecordsRequestEntry.builder()
                                    .partitionKey("device-" + data.hashCode())
                                    .data(SdkBytes.fromString(data, StandardCharsets.UTF_8))
                                    .build())
                            .toList()));
            assertThat(put.failedRecordCount()).isZero();

            List<String> read = new ArrayList<>();
            List<Shard> shards = kinesis.listShards(b -> b.streamARN(arn)).shards();
            for (Shard shard : shards) {
                String iterator = kinesis.getShardIterator(b -> b.streamARN(arn)
                                .shardId(shard.shardId())
                                .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                        .shardIterator();
                for (Record record : kinesis.getRecords(b -> b.streamARN(arn).shardIterator(iterator))
                        .records()) {
                    read.add(record.data().asUtf8String());
                }
            }
            assertThat(shards).hasSize(2);
            assertThat(read).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    @Test
    void listensOnLoopbackOnlyAndStopsOnClose() throws Exception {
        assertThat(ListeningSockets.available())
                .as("reads the kernel socket tables, /proc/net/tcp (Linux)")
                .isTrue();
        Kinesalite kinesalite = Kinesalite.start();
        int port = kinesalite.port();
        try {
            assertThat(ListeningSockets.addressesListeningOn(port))
                    .isNotEmpty()
                    .allSatisfy(address -> assertThat(address.getHostAddress()).isEqualTo("127.0.0.1"));
        } finally {
            kinesalite.close();
            kinesalite.close();
        }
        assertThatThrownBy(() -> new Socket(Dynalite.HOST, port).close()).isInstanceOf(ConnectException.class);
    }
}
