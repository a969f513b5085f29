/**
 * The archive bench (issue 40): a synthetic day's folder, then the marker's steps timed on it,
 * on local disk or the local S3 emulator, through the archive's {@code ArchiveSteps}.
 */
package io.periodtables.bench.archive;
