package io.periodtables.sink;

import io.periodtables.core.item.DynamoDbItemSize;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriterStateSerializer;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.types.StringValue;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Writer state of {@link PeriodTableSink}: the buffered and delayed entries, each with its table.
 * Version 2 of an entry: table name, attribute count, then per attribute its name and a tagged
 * value (S, N, B, BOOL, NUL, M, L). Strings are written as Flink's {@link StringValue} does (the
 * UTF-16 units, each as a variable-length integer), so every Java string round-trips, lone
 * surrogates included; UTF-8 would turn those into {@code ?}. Version 1 (strings as UTF-8, a
 * failed-attempt count after the table name) is still read. State of an unknown version is
 * refused with a message, never misread. A restored entry starts with no failed attempts, so a
 * restart after a long outage does not fail the job at once on entries that had nearly used up
 * {@code sink.max-attempts}.
 */
@Internal
public final class TableWriteEntrySerializer extends AsyncSinkWriterStateSerializer<TableWriteEntry> {

    static final int VERSION = 2;

    private static final byte S = 1;
    private static final byte N = 2;
    private static final byte B = 3;
    private static final byte BOOL = 4;
    private static final byte NUL = 5;
    private static final byte M = 6;
    private static final byte L = 7;

    /** The format this instance reads: {@link #VERSION}, or 1 for a restore from version 1. */
    private final int readsVersion;

    public TableWriteEntrySerializer() {
        this(VERSION);
    }

    private TableWriteEntrySerializer(int readsVersion) {
        this.readsVersion = readsVersion;
    }

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public BufferedRequestState<TableWriteEntry> deserialize(int version, byte[] serialized) throws IOException {
        if (version == 1) {
            return new TableWriteEntrySerializer(1).deserializeOwn(serialized);
        }
        if (version != VERSION) {
            throw new IOException("period-table sink writer state has version " + version
                    + ", this build reads versions 1 and " + VERSION + "; restore with the build that wrote it");
        }
        return deserializeOwn(serialized);
    }

    private BufferedRequestState<TableWriteEntry> deserializeOwn(byte[] serialized) throws IOException {
        return super.deserialize(readsVersion, serialized);
    }

    @Override
    protected void serializeRequestToStream(TableWriteEntry entry, DataOutputStream out) throws IOException {
        StringValue.writeString(entry.table(), out);
        writeMap(entry.item(), out);
    }

    @Override
    protected TableWriteEntry deserializeRequestFromStream(long requestSize, DataInputStream in) throws IOException {
        String table;
        if (readsVersion == 1) {
            table = in.readUTF();
            in.readInt(); // failed attempts before the restore: not carried over
        } else {
            table = StringValue.readString(in);
        }
        Map<String, AttributeValue> item = readMap(in);
        return new TableWriteEntry(table, item, requestSize, 0);
    }

    private void writeMap(Map<String, AttributeValue> map, DataOutputStream out) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<String, AttributeValue> attribute : map.entrySet()) {
            writeString(attribute.getKey(), out);
            writeValue(attribute.getValue(), out);
        }
    }

    private void writeValue(AttributeValue value, DataOutputStream out) throws IOException {
        switch (value.type()) {
            case S -> {
                out.writeByte(S);
                writeString(value.s(), out);
            }
            case N -> {
                out.writeByte(N);
                writeString(value.n(), out);
            }
            case B -> {
                byte[] bytes = value.b().asByteArrayUnsafe();
                out.writeByte(B);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
            case BOOL -> {
                out.writeByte(BOOL);
                out.writeBoolean(value.bool());
            }
            case NUL -> out.writeByte(NUL);
            case M -> {
                out.writeByte(M);
                writeMap(value.m(), out);
            }
            case L -> {
                out.writeByte(L);
                out.writeInt(value.l().size());
                for (AttributeValue element : value.l()) {
                    writeValue(element, out);
                }
            }
            default -> throw new IOException("the sink never builds attribute values of type " + value.type());
        }
    }

    private Map<String, AttributeValue> readMap(DataInputStream in) throws IOException {
        int size = in.readInt();
        Map<String, AttributeValue> map = new HashMap<>(Math.max(4, size * 2));
        for (int i = 0; i < size; i++) {
            String name = readString(in);
            map.put(name, readValue(in));
        }
        return map;
    }

    private AttributeValue readValue(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        switch (tag) {
            case S:
                return AttributeValue.fromS(readString(in));
            case N:
                return AttributeValue.fromN(readString(in));
            case B:
                return AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(readBytes(in)));
            case BOOL:
                return AttributeValue.fromBool(in.readBoolean());
            case NUL:
                return AttributeValue.fromNul(true);
            case M:
                return AttributeValue.fromM(readMap(in));
            case L:
                int size = in.readInt();
                List<AttributeValue> list = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    list.add(readValue(in));
                }
                return AttributeValue.fromL(list);
            default:
                throw new IOException("corrupt period-table sink writer state: unknown attribute tag " + tag);
        }
    }

    private static void writeString(String s, DataOutputStream out) throws IOException {
        StringValue.writeString(s, out);
    }

    private String readString(DataInputStream in) throws IOException {
        return readsVersion == 1 ? new String(readBytes(in), StandardCharsets.UTF_8) : StringValue.readString(in);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > DynamoDbItemSize.MAX_ITEM_BYTES) {
            throw new IOException("corrupt period-table sink writer state: length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
