package io.spinel.server;

import io.spinel.core.Log;
import io.spinel.core.config.Config;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * "user NAME rules..." lines: checked while the file is read as Redis checks them, and applied at
 * start (where a rule naming an unknown command stops it, as in Redis).
 */
class ConfigLoaderUserTest {
    private static ConfigLoader load(String text) throws Exception {
        ConfigLoader loader = new ConfigLoader(new Config());
        loader.load(text, null);
        loader.checkAfterLoading();
        return loader;
    }

    @Test
    void usersAreKeptWithTheirRulesAndSelectorsMerged() throws Exception {
        ConfigLoader l = load("user default on nopass ~* &* +@all\nuser alice on >pw ~app:* (+get ~x) +@read\n");
        assertThat(l.users()).containsExactly(List.of("default", "on", "nopass", "~*", "&*", "+@all"),
                List.of("alice", "on", ">pw", "~app:*", "(+get ~x)", "+@read"));
        // an unknown command is found at start, not while reading
        assertThat(load("user bob on +nosuchcommand\n").users()).hasSize(1);
    }

    @Test
    void badLinesAreRefusedWithTheLineNamed() {
        assertThatThrownBy(() -> load("user default on #ABC ~* &* +@all\n")).hasMessageContaining("line 1")
                // Redis names the token at the rule's index in the whole line ("user", then the name...)
                .hasMessageContaining("Error in user declaration 'default': The password hash must be exactly 64 "
                        + "characters and contain only lowercase hexadecimal characters");
        assertThatThrownBy(() -> load("user alice bogus\n"))
                .hasMessageContaining("Error in user declaration 'user': Syntax error");
        // the directive is named as Redis lowers it (found by ConfigFileDiffTest's seed 2001)
        assertThatThrownBy(() -> load("USER alice bogus\n"))
                .hasMessageContaining("Error in user declaration 'user': Syntax error");
        assertThatThrownBy(() -> load("user default on nopass ~* &* +@all\nuser default on nopass ~* &* +@all\n"))
                .hasMessageContaining("line 2").hasMessageContaining(
                        "Error in user declaration 'default': Duplicate user found. A user can only be defined once in config files");
        assertThatThrownBy(() -> load("user\n")).hasMessageContaining("Bad directive or wrong number of arguments");
    }

    @Test
    void usersAreAppliedAtStart() throws Exception {
        ConfigLoader l = load("requirepass pw\nuser alice on >secret ~app:* +get\n");
        io.spinel.core.Engine engine = new io.spinel.core.Engine(new Config(), Log.silent());
        SpinelServer.loadUsers(engine, l.users());
        assertThat(engine.acl().user("alice").describe()).isEqualTo("on #2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b ~app:* resetchannels -@all +get");
        ConfigLoader bad = load("user bob on +nosuchcommand\n");
        io.spinel.core.Engine e2 = new io.spinel.core.Engine(new Config(), Log.silent());
        assertThatThrownBy(() -> SpinelServer.loadUsers(e2, bad.users())).hasMessageContaining(
                "Error loading ACL rule '+nosuchcommand' for the user named 'bob': Unknown command or category name in ACL");
    }
}
