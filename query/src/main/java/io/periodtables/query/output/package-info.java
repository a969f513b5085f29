/**
 * How results are printed: readings and buckets as JSON lines, a table or CSV, and as SVG charts.
 */
package io.periodtables.query.output;
