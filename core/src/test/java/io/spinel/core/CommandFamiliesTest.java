package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandTable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Handlers are made when a command first runs (CommandTable#registerLazily), from a switch in
 * each family that must name every command the family registers: a name listed but missing from
 * the switch would only fail when a client first sends that command.
 */
class CommandFamiliesTest {

    @Test
    void everyRegisteredCommandHasAHandler() {
        CommandTable t = new CommandTable();
        CommandFamilies.registerAll(t);
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (Command c : t.commands()) {
            List<Command> runnable = c.isContainer() ? c.subcommands() : List.of(c);
            for (Command r : runnable) {
                checked++;
                try {
                    if (r.handler() == null) missing.add(r.name);
                } catch (IllegalStateException e) {
                    missing.add(r.name);
                }
            }
        }
        assertThat(missing).isEmpty();
        // every family registered: strings, lists, hashes, sets, sorted sets, streams, scripts...
        assertThat(checked).isGreaterThan(300);
        assertThat(t.spec("get").handler()).isSameAs(t.spec("get").handler());
    }

    @Test
    void aNameWithoutACaseFailsWhenItFirstRuns() {
        CommandTable t = new CommandTable();
        t.registerLazily(name -> name.equals("get") ? c -> c.reply().nil() : null, "get", "set");
        assertThat(t.spec("get").handler()).isNotNull();
        assertThat(t.spec("set").implemented()).isTrue();
        assertThatThrownBy(() -> t.spec("set").handler()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set");
    }
}
