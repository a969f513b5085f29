package io.periodtables.core.item;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.util.BufferRecycler;
import org.apache.flink.annotation.Internal;

/**
 * A Jackson {@link JsonFactory} whose parsers and generators take their buffers from one
 * {@link BufferRecycler} shared by every thread (it hands each buffer out once, atomically),
 * instead of Jackson's per-thread one. The job makes a parser per record in its source and per
 * item in its sinks; on Flink's task threads, whose thread-local maps hold many entries, finding
 * Jackson's thread-local recycler was half of building an item's attributes (issue 58's profile).
 * Jackson 2.16's {@code RecyclerPool} does the same; the project is on 2.15.
 */
@Internal
public final class SharedBufferJsonFactory extends JsonFactory {
    private static final long serialVersionUID = 1L;

    private static final BufferRecycler BUFFERS = new BufferRecycler();

    /** A factory with Jackson's defaults. */
    public SharedBufferJsonFactory() {
        super();
    }

    /** A factory configured by {@code builder}. */
    public SharedBufferJsonFactory(JsonFactoryBuilder builder) {
        super(builder);
    }

    @Override
    public BufferRecycler _getBufferRecycler() {
        return BUFFERS;
    }

    private SharedBufferJsonFactory(SharedBufferJsonFactory source) {
        super(source, null);
    }

    /** A copy sharing the same buffers (Jackson copies a factory for a copied {@code ObjectMapper}). */
    @Override
    public JsonFactory copy() {
        return new SharedBufferJsonFactory(this);
    }
}
