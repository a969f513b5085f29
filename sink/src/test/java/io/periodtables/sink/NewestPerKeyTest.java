package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.DynamoDbItemSize;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class NewestPerKeyTest {

    @Test
    void keepsTheLaterEntryForTheSameTableAndKey() {
        TableWriteEntry older = entry("readings_a", "dev#1", "s1", "old");
        TableWriteEntry other = entry("readings_a", "dev#1", "s2", "x");
        TableWriteEntry newer = entry("readings_a", "dev#1", "s1", "new");

        assertThat(NewestPerKey.of(List.of(older, other, newer))).containsExactly(other, newer);
    }

    @Test
    void sameKeyInDifferentTablesIsNoDuplicate() {
        TableWriteEntry a = entry("readings_a", "dev", "s1", "1");
        TableWriteEntry b = entry("readings_b", "dev", "s1", "1");
        assertThat(NewestPerKey.of(List.of(a, b))).containsExactly(a, b);
    }

    @Test
    void keysThatWouldCollideWhenJoinedStayApart() {
        TableWriteEntry a = entry("t$a", "b", "c", "1");
        TableWriteEntry b = entry("t", "a$b", "c", "2");
        TableWriteEntry c = entry("t", "a", "b$c", "3");
        TableWriteEntry d = entry("t", "a#b", "c", "4");
        TableWriteEntry e = entry("t", "a", "b#c", "5");
        assertThat(NewestPerKey.of(List.of(a, b, c, d, e))).containsExactly(a, b, c, d, e);
    }

    @Test
    void batchWithoutDuplicatesIsReturnedAsIs() {
        List<TableWriteEntry> batch = List.of(entry("t", "a", "1", "v"), entry("t", "a", "2", "v"));
        assertThat(NewestPerKey.of(batch)).isSameAs(batch);
    }

    static TableWriteEntry entry(String table, String pk, String sk, String value) {
        Map<String, AttributeValue> item = Map.of(
                "pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromS(sk), "v", AttributeValue.fromS(value));
        return new TableWriteEntry(table, item, DynamoDbItemSize.of(item), 0);
    }
}
