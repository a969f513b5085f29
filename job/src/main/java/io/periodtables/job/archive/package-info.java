/**
 * The archive's glue: the start-up check of archive.path (ArchiveFileSystem), the archive's items
 * (StoredItems) and retention's gate (ArchivedPeriods).
 */
package io.periodtables.job.archive;
