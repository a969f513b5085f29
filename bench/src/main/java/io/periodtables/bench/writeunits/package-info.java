/**
 * Benchmark 21 (WriteUnitsBench): write units per stored reading by the kind of table the job
 * writes them to, for three fleet shapes, beside what {@code plan} says for the same fleets.
 */
package io.periodtables.bench.writeunits;
