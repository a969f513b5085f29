package io.periodtables.archive;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Parquet's GZIP codec on {@code java.util.zip}. Parquet's own codec factory instantiates Hadoop
 * codecs through a Hadoop {@code Configuration}, which would pull Hadoop's dependency tree (Guava,
 * Woodstox, …) into the job jar; pages compressed here are plain gzip members, as every Parquet
 * reader (Athena, Spark, DuckDB) expects for GZIP. Uncompressed pages pass through on reading.
 */
final class GzipCodecs implements CompressionCodecFactory {

    static final GzipCodecs INSTANCE = new GzipCodecs();

    private GzipCodecs() {}

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        if (codec != CompressionCodecName.GZIP) {
            throw new IllegalArgumentException("the archive writes GZIP pages, not " + codec);
        }
        return new BytesInputCompressor() {
            @Override
            public BytesInput compress(BytesInput bytes) throws IOException {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
                    bytes.writeAllTo(gzip);
                }
                return BytesInput.from(out.toByteArray());
            }

            @Override
            public CompressionCodecName getCodecName() {
                return CompressionCodecName.GZIP;
            }

            @Override
            public void release() {}
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        if (codec != CompressionCodecName.GZIP && codec != CompressionCodecName.UNCOMPRESSED) {
            throw new IllegalArgumentException("the archive reads GZIP or uncompressed pages, not " + codec);
        }
        return new BytesInputDecompressor() {
            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
                if (codec == CompressionCodecName.UNCOMPRESSED) {
                    return bytes;
                }
                try (InputStream gzip = new GZIPInputStream(bytes.toInputStream())) {
                    return BytesInput.from(gzip.readNBytes(uncompressedSize));
                }
            }

            @Override
            public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                    throws IOException {
                byte[] compressed = new byte[compressedSize];
                input.get(compressed);
                output.put(decompress(BytesInput.from(compressed), uncompressedSize)
                        .toByteBuffer());
            }

            @Override
            public void release() {}
        };
    }

    @Override
    public void release() {}
}
