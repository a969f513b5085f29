package io.periodtables.model;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of one of the sink's stateless serializers whose snapshot version <em>is</em> the
 * version of the binary format it writes. Restoring state written by a newer format fails with
 * a message that says so, instead of misreading bytes; a format change bumps the version and
 * teaches the serializer to read the old one (then compatibility becomes "after migration").
 */
@Internal
abstract class FormatVersionSnapshot<T> implements TypeSerializerSnapshot<T> {

    private final int currentVersion;
    private int readVersion;

    FormatVersionSnapshot(int currentVersion) {
        this.currentVersion = currentVersion;
        this.readVersion = currentVersion;
    }

    /** The serializer for the current format. */
    abstract TypeSerializer<T> serializer();

    @Override
    public int getCurrentVersion() {
        return currentVersion;
    }

    /** The format version of the state this snapshot describes. */
    int formatVersion() {
        return readVersion;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // The version Flink writes before the snapshot is all there is to know.
    }

    @Override
    public void readSnapshot(int version, DataInputView in, ClassLoader classLoader) throws IOException {
        if (version < 1 || version > currentVersion) {
            throw new IOException(getClass().getName() + ": state was written in format version " + version
                    + ", this build reads versions 1 to " + currentVersion
                    + "; restore it with the build that wrote it or a newer one");
        }
        readVersion = version;
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
        return serializer();
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
        if (!(oldSnapshot instanceof FormatVersionSnapshot<T> old) || old.getClass() != getClass()) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        return old.formatVersion() == currentVersion
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
    }
}
