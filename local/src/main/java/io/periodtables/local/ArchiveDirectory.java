package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The start-up check of a local archive ({@code archive.path} {@code file://…} or a plain path):
 * this run can create the directory and write in it. Without it, an unwritable path (such as
 * {@code file:///proc/pt-archive}) failed the file sink's first checkpoint, restarted the job over
 * and over and ended without a savepoint, on tables a new run had already emptied. Other schemes
 * are written by their file system's own credentials and are not probed.
 */
final class ArchiveDirectory {
    private ArchiveDirectory() {}

    /** @throws ConfigException naming {@code archive.path} when a local archive cannot be written */
    static void check(PeriodTablesConfig config) {
        String archive = config.find(ConfigKeys.ARCHIVE_PATH).orElse(null);
        if (archive == null) {
            return;
        }
        URI uri = new org.apache.flink.core.fs.Path(archive).toUri();
        if (uri.getScheme() != null && !uri.getScheme().equals("file")) {
            return;
        }
        Path dir = Path.of(uri.getPath());
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".run-local-check", ""));
        } catch (IOException | SecurityException e) {
            throw ConfigException.invalid(
                    ConfigKeys.ARCHIVE_PATH.name(),
                    archive,
                    "this run cannot write there (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                            + "); give a directory it can create and write in");
        }
    }
}
