package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandTable;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
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

    /** Sentinel mode's table: Redis 7.0's commands flagged "sentinel", each with a handler, and nothing else. */
    @Test
    void sentinelModeServesOnlySentinelsTable() {
        CommandTable t = new CommandTable();
        CommandFamilies.registerAll(t);
        t.retainOnly(CommandFamilies.SENTINEL_COMMANDS);
        CommandFamilies.registerSentinel(t);
        List<String> served = new ArrayList<>();
        for (Command c : t.commands()) {
            List<Command> runnable = c.isContainer() ? c.subcommands() : List.of(c);
            for (Command r : runnable) {
                if (!r.implemented()) continue;
                assertThat(r.handler()).as(r.name).isNotNull();
                served.add(r.name);
            }
        }
        assertThat(served).contains("sentinel|masters", "sentinel|is-master-down-by-addr", "sentinel|debug", "publish",
                "role", "info", "client|kill", "acl|setuser", "hello", "subscribe", "shutdown");
        assertThat(served).doesNotContain("get", "set", "config|get", "client|no-touch", "client|setinfo", "reset", "select");
        assertThat(served).hasSize(68); // 11 commands, and the subcommands: ACL 13, CLIENT 16, COMMAND 7, SENTINEL 21
        // and a data server has no SENTINEL
        CommandTable normal = new CommandTable();
        CommandFamilies.registerAll(normal);
        assertThat(normal.spec("sentinel").implemented()).isFalse();
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

    @Test
    void keyFlagsKeyFindersAndDynamicFlagsComeWithTheHandler() {
        CommandTable t = new CommandTable();
        CommandFamilies.registerAll(t);
        for (String name : new String[] {"set", "bitfield", "sort", "migrate"}) {
            assertThat(t.spec(name).keyFlags()).as(name).isNotNull();
        }
        assertThat(t.spec("get").keyFlags()).isNull();
        assertThat(t.spec("sort_ro").keyFlags()).isNull();
        // SORT's STORE destination is found by the family's key finder, made on first need
        io.spinel.core.command.IntList keys = new io.spinel.core.command.IntList();
        io.spinel.core.protocol.Args args = new io.spinel.core.protocol.Args();
        for (String a : new String[] {"sort", "src", "store", "dst"}) args.add(io.spinel.core.util.Bytes.ascii(a));
        assertThat(t.spec("sort").keys(args, keys)).isTrue();
        assertThat(keys.size()).isEqualTo(2);
        assertThat(t.spec("sort").keyFlags().of(args, 3)).containsExactly("OW", "update");
    }

    /** Loads core's classes itself, so that a test can see which ones a step loaded. */
    private static final class RecordingLoader extends URLClassLoader {
        RecordingLoader(URL classes) {
            super(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        }

        boolean loaded(String name) {
            return findLoadedClass(name) != null;
        }
    }

    @Test
    void registeringLoadsNoFamilyUntilOneOfItsCommandsRuns() throws Exception {
        // a family's class (tens of KB of bytecode the JVM verifies) loads with its first command,
        // not with every server's first start
        URL classes = CommandFamilies.class.getProtectionDomain().getCodeSource().getLocation();
        try (RecordingLoader loader = new RecordingLoader(classes)) {
            Class<?> table = loader.loadClass(CommandTable.class.getName());
            Object t = table.getConstructor().newInstance();
            Method registerAll = loader.loadClass(CommandFamilies.class.getName()).getDeclaredMethod("registerAll", table);
            registerAll.setAccessible(true);
            registerAll.invoke(null, t);
            String strings = "io.spinel.core.type.string.StringCommands";
            for (String family : new String[] {strings, "io.spinel.core.type.zset.ZSetCommands",
                    "io.spinel.core.type.stream.StreamCommands", "io.spinel.core.keyspace.KeyCommands",
                    "io.spinel.core.script.EvalScripts", "io.spinel.core.ServerCommands"}) {
                assertThat(loader.loaded(family)).as(family).isFalse();
            }
            Object get = table.getMethod("spec", String.class).invoke(t, "get");
            assertThat(get.getClass().getMethod("handler").invoke(get)).isNotNull();
            assertThat(loader.loaded(strings)).isTrue();
        }
    }
}
