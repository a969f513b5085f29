/**
 * The scale bench (ScaleBench): a day and a week of a large fleet, its checkpoints' size and
 * time (ScaleSample), charted (ScaleChart) and reported (ScaleReport).
 */
package io.periodtables.bench.scale;
