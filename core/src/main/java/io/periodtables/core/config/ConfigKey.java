package io.periodtables.core.config;

import java.io.Serializable;
import java.util.function.Function;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One configuration key: its name, default (or none), the meaning shown in docs/configuration.md, and
 * how its text becomes a typed value. A parser signals a bad value with an
 * {@link IllegalArgumentException} whose message says what is accepted.
 *
 * @param <T> the type of the parsed value
 */
@PublicEvolving
public final class ConfigKey<T> implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A parser that can travel with a serialized configuration. */
    public interface Parser<T> extends Function<String, T>, Serializable {}

    private final String name;
    private final String defaultValue;
    private final String meaning;
    private final Parser<T> parser;

    ConfigKey(String name, String defaultValue, String meaning, Parser<T> parser) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.meaning = meaning;
        this.parser = parser;
    }

    public String name() {
        return name;
    }

    /** The default as text, or {@code null} when the key has none. */
    public String defaultValue() {
        return defaultValue;
    }

    public String meaning() {
        return meaning;
    }

    /** Parses {@code text}; a bad value becomes a {@link ConfigException} naming this key. */
    public T parse(String text) {
        try {
            return parser.apply(text.trim());
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw ConfigException.invalid(name, text, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
