package io.periodtables.core.config;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A configuration that cannot run. The message is one line naming the key, the value and what
 * would be accepted, so it can be printed as is when the job refuses to start.
 */
@PublicEvolving
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public ConfigException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** A value that the key does not accept. */
    public static ConfigException invalid(String key, String value, String accepted) {
        return new ConfigException(key, "Invalid configuration: " + key + " = '" + value + "': " + accepted);
    }

    /** The key the problem is about. */
    public String key() {
        return key;
    }
}
