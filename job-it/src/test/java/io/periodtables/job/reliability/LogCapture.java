package io.periodtables.job.reliability;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Captures every log event of this JVM (all threads, so Flink's task threads too) as text,
 * message and stack trace, at the levels the job's jar ships with ({@code log4j2.properties}:
 * INFO, AWS SDK, Netty and SDK v1 at WARN) and period-tables' own loggers at DEBUG.
 */
final class LogCapture implements AutoCloseable {
    /** Levels of the job jar's log4j2.properties, with our own loggers one step more verbose. */
    private static final Map<String, Level> LEVELS = Map.of(
            "io.periodtables", Level.DEBUG,
            "software.amazon.awssdk", Level.WARN,
            "software.amazon.awssdk.request", Level.WARN,
            "software.amazon.awssdk.http", Level.WARN,
            "io.netty", Level.WARN,
            "com.amazonaws", Level.WARN);

    private final StringBuffer text = new StringBuffer();
    private final Map<String, Level> before = new HashMap<>();
    private final AbstractAppender appender;
    private final Level rootBefore;

    LogCapture() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender =
                new AbstractAppender(
                        "reliability-capture", null, PatternLayout.createDefaultLayout(), true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        text.append(event.getLevel())
                                .append(' ')
                                .append(event.getLoggerName())
                                .append(" - ")
                                .append(event.getMessage().getFormattedMessage())
                                .append('\n');
                        if (event.getThrown() != null) {
                            StringWriter trace = new StringWriter();
                            event.getThrown().printStackTrace(new PrintWriter(trace));
                            text.append(trace).append('\n');
                        }
                    }
                };
        appender.start();
        LoggerConfig root = config.getRootLogger();
        rootBefore = root.getLevel();
        root.addAppender(appender, Level.ALL, null);
        LEVELS.forEach((name, level) -> {
            before.put(
                    name,
                    config.getLoggerConfig(name).getName().equals(name)
                            ? config.getLoggerConfig(name).getLevel()
                            : null);
            Configurator.setLevel(name, level);
        });
        Configurator.setRootLevel(Level.INFO);
        // Loggers with their own configuration (and additivity) reach the appender through the root.
        config.getLoggers().values().forEach(logger -> {
            if (!logger.isAdditive()) {
                logger.addAppender(appender, Level.ALL, null);
            }
        });
        context.updateLoggers();
    }

    String text() {
        return text.toString();
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        config.getLoggers().values().forEach(logger -> logger.removeAppender(appender.getName()));
        config.getRootLogger().removeAppender(appender.getName());
        Configurator.setRootLevel(rootBefore);
        before.forEach((name, level) -> Configurator.setLevel(name, level));
        context.updateLoggers();
        appender.stop();
    }
}
