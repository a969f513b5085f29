package io.periodtables.bench;

import io.periodtables.emulators.DynamoDbLocal;

import java.io.IOException;

/**
 * Main of the child JVM that hosts DynamoDB Local for the throughput benchmarks, so the emulator
 * does not share the measured job's heap, GC or CPU accounting. Prints {@code ENDPOINT <uri>}
 * once listening, and stops when its standard input closes (the parent exited or closed it).
 */
public final class DynamoDbLocalServer {

    static final String ENDPOINT_LINE = "ENDPOINT ";

    private DynamoDbLocalServer() {}

    public static void main(String[] args) throws IOException {
        try (DynamoDbLocal local = DynamoDbLocal.start()) {
            System.out.println(ENDPOINT_LINE + local.endpoint());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for end of input
            }
        }
        System.exit(0);
    }
}
