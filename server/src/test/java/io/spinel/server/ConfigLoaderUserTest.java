package io.spinel.server;

import io.spinel.core.config.Config;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** "user default ..." lines (which CONFIG REWRITE writes) are accepted when they describe Spinel's one user. */
class ConfigLoaderUserTest {
    private static final String PW_HASH = "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"; // "pw"

    private static ConfigLoader load(String text) throws Exception {
        ConfigLoader loader = new ConfigLoader(new Config());
        loader.load(text, null);
        loader.checkAfterLoading();
        return loader;
    }

    @Test
    void linesRedisAndSpinelWriteAreAccepted() throws Exception {
        assertThat(load("user default on nopass ~* &* +@all\n").defaultUserPayloadFlag()).isEqualTo("sanitize-payload");
        assertThat(load("user default on nopass sanitize-payload ~* &* +@all\n").defaultUserPayloadFlag())
                .isEqualTo("sanitize-payload");
        assertThat(load("requirepass pw\nuser default on skip-sanitize-payload #" + PW_HASH + " ~* &* +@all\n")
                .defaultUserPayloadFlag()).isEqualTo("skip-sanitize-payload");
        // the user line may come before requirepass (a rewrite replaces it in place, appends requirepass)
        load("user default on #" + PW_HASH + " ~* &* +@all\nrequirepass pw\n");
        load("requirepass pw\nuser default reset ON >pw allkeys allchannels allcommands\n");
        load("user default on >old <old nopass resetkeys ~* -@all +@all &*\n");
        // with acl-pubsub-default allchannels a reset user already has every channel
        load("acl-pubsub-default allchannels\nuser default on nopass ~* +@all\n");
        assertThat(load("port 7000\n").defaultUserPayloadFlag()).isEmpty();
    }

    @Test
    void anythingElseIsRefusedWithTheLineNamed() {
        assertThatThrownBy(() -> load("user alice on nopass ~* &* +@all\n"))
                .hasMessageContaining("line 1").hasMessageContaining("ACL users ('user alice') are not supported yet");
        assertThatThrownBy(() -> load("user default off nopass ~* &* +@all\n"))
                .hasMessageContaining("its rules must give 'on ~* &* +@all'");
        assertThatThrownBy(() -> load("user default on nopass ~* +@all\n")) // resetchannels by default in 7.0
                .hasMessageContaining("its rules must give 'on ~* &* +@all'");
        assertThatThrownBy(() -> load("user default on nopass ~app:* &* +@all\n"))
                .hasMessageContaining("ACL rule '~app:*' is not supported by Spinel");
        assertThatThrownBy(() -> load("requirepass pw\nuser default on nopass ~* &* +@all\n"))
                .hasMessageContaining("line 2").hasMessageContaining("the default user's only password must be the requirepass one");
        assertThatThrownBy(() -> load("user default on >pw ~* &* +@all\n"))
                .hasMessageContaining("the default user must be 'nopass' as requirepass is not set");
        assertThatThrownBy(() -> load("requirepass pw\nuser default on >pw >other ~* &* +@all\n"))
                .hasMessageContaining("the default user's only password must be the requirepass one");
        assertThatThrownBy(() -> load("user default on #ABC ~* &* +@all\n")).hasMessageContaining(
                "Error in user declaration '#ABC': The password hash must be exactly 64 characters and contain only "
                        + "lowercase hexadecimal characters");
        assertThatThrownBy(() -> load("user default on nopass ~* &* +@all\nuser default on nopass ~* &* +@all\n"))
                .hasMessageContaining("line 2").hasMessageContaining(
                        "Error in user declaration 'default': Duplicate user found. A user can only be defined once in config files");
        assertThatThrownBy(() -> load("user\n")).hasMessageContaining("Bad directive or wrong number of arguments");
    }
}
