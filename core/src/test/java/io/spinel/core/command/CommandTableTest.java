package io.spinel.core.command;

import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The table makes its commands on first need; what clients can see must not depend on when. */
class CommandTableTest {
    private static final CommandHandler NOOP = c -> { };

    private static Command lookup(CommandTable t, String name) {
        byte[] b = Bytes.ascii(name);
        return t.lookup(b, 0, b.length);
    }

    @Test
    void onlyRegisteredCommandsAreFoundInAnyCase() {
        CommandTable t = new CommandTable();
        assertThat(lookup(t, "get")).isNull(); // known to Redis, not registered
        t.register("get", NOOP);
        assertThat(lookup(t, "GeT")).isSameAs(t.spec("get"));
        assertThat(lookup(t, "nosuchcommand")).isNull();
        assertThat(t.spec("nosuchcommand")).isNull();
        assertThat(t.commands()).extracting(c -> c.name).containsExactly("get");
        assertThat(t.allKnown()).hasSizeGreaterThan(200);
        assertThatThrownBy(() -> t.register("nosuchcommand", NOOP)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aContainerExistsOnceOneOfItsSubcommandsIsRegisteredBeforeOrAfterItWasMade() {
        CommandTable t = new CommandTable();
        t.register("config|get", NOOP);
        Command config = lookup(t, "CONFIG");
        assertThat(config).isNotNull();
        assertThat(config.isContainer()).isTrue();
        assertThat(config.subcommand("get")).isSameAs(t.spec("config|get"));
        assertThat(config.subcommand("set")).isNull();
        assertThat(t.spec("config|get").parent).isSameAs(config);
        // registered after the container was made: the made command takes it
        t.registerLazily(name -> NOOP, "config|set");
        assertThat(config.subcommand("set")).isNotNull();
        assertThat(config.subcommands()).extracting(c -> c.name).containsExactly("config|get", "config|set");
        // a subcommand asked for first makes its container too
        CommandTable u = new CommandTable();
        u.register("client|id", NOOP);
        assertThat(u.spec("client|id").parent).isSameAs(u.spec("client"));
        assertThat(u.commands()).extracting(c -> c.name).containsExactly("client");
    }

    @Test
    void eachTableHasItsOwnCommandsAndCounters() {
        CommandTable a = new CommandTable();
        CommandTable b = new CommandTable();
        a.register("get", NOOP);
        b.register("get", NOOP);
        a.spec("get").calls = 5;
        assertThat(b.spec("get").calls).isZero();
        a.resetStats();
        assertThat(a.spec("get").calls).isZero();
    }
}
