package io.periodtables.job.archive;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.UnsupportedFileSystemSchemeException;

/**
 * The start-up check of {@code archive.path}: Flink has a file system for its scheme. Without it
 * (an {@code s3://} path and no S3 file system in the jar or the cluster's plugins) the file sink
 * would fail its first task and the job would restart in a loop; the check stops it before it
 * runs, with one line naming the key.
 */
@Internal
public final class ArchiveFileSystem {
    private ArchiveFileSystem() {}

    public static void require(String archivePath) {
        Path path = new Path(archivePath);
        try {
            path.getFileSystem();
        } catch (UnsupportedFileSystemSchemeException e) {
            throw ConfigException.invalid(
                    ConfigKeys.ARCHIVE_PATH.name(),
                    archivePath,
                    "Flink has no file system for the scheme '" + path.toUri().getScheme()
                            + "' (file:// is built in; s3:// and s3a:// need Flink's S3 file system,"
                            + " flink-s3-fs-hadoop, in the cluster's plugins or on its class path, not in the job's"
                            + " jar: Managed Service for Apache Flink and ./run-local have it)");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the file system of archive.path " + archivePath, e);
        }
    }
}
