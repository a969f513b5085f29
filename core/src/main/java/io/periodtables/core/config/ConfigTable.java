package io.periodtables.core.config;

import org.apache.flink.annotation.Internal;

/**
 * Renders {@link ConfigKeys} as the Markdown table of docs/configuration.md, so the documentation
 * is generated from the code (a test keeps the page in step). {@code main} prints it.
 */
@Internal
public final class ConfigTable {

    private ConfigTable() {}

    public static String markdown() {
        StringBuilder sb = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
        for (ConfigKey<?> key : ConfigKeys.all()) {
            sb.append("| `")
                    .append(key.name())
                    .append("` | ")
                    .append(key.defaultValue() == null ? "—" : "`" + key.defaultValue() + "`")
                    .append(" | ")
                    .append(key.meaning())
                    .append(" |\n");
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        System.out.print(markdown());
    }
}
