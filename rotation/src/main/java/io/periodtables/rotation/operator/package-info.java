/**
 * The Flink side: the parallelism-1 RotationOperator that hands watermarks and write loads to the
 * reconcile loop, its factory, its options and its versioned state serializer.
 */
package io.periodtables.rotation.operator;
