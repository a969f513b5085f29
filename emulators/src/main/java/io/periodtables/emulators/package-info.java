/**
 * Emulators for tests, the local run and the benchmarks, on 127.0.0.1 only: dynalite behind the
 * DynamoDB fidelity layer (Dynalite, FidelityLayer), kinesalite behind the Kinesis fidelity layer
 * (Kinesalite, KinesisLayer), s3proxy, SDK-level faults
 * (DynamoDbFaults) and the recording Application Auto Scaling endpoint. Never in the MSF jar.
 */
package io.periodtables.emulators;
