package io.spinel.core.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigTest {
    @Test
    void validatesLikeRedis() throws Exception {
        Config c = new Config();
        assertThatThrownBy(() -> c.set("port", "abc")).hasMessage("argument couldn't be parsed into an integer");
        assertThatThrownBy(() -> c.set("port", "70000")).hasMessage("argument must be between 0 and 65535 inclusive");
        assertThatThrownBy(() -> c.set("protected-mode", "maybe")).hasMessage("argument must be 'yes' or 'no'");
        assertThatThrownBy(() -> c.set("loglevel", "loud"))
                .hasMessage("argument(s) must be one of the following: debug, verbose, notice, warning");
        c.set("client-query-buffer-limit", "2gb");
        assertThat(c.get("client-query-buffer-limit")).isEqualTo("2147483648");
        c.set("PROTECTED-MODE", "NO");
        assertThat(c.get("protected-mode")).isEqualTo("no");
        c.set("hash-max-ziplist-entries", "100");
        assertThat(c.get("hash-max-listpack-entries")).isEqualTo("100");
    }

    @Test
    void unimplementedOptionsOnlyAcceptTheirDefault() throws Exception {
        Config c = new Config();
        c.set("cluster-enabled", "no");
        assertThatThrownBy(() -> c.set("cluster-enabled", "yes")).hasMessageContaining("does not implement 'cluster-enabled'");
        c.set("lazyfree-lazy-eviction", "yes"); // harmless: accepted and remembered for the log
        assertThat(c.ignoredInUse()).contains("lazyfree-lazy-eviction");
    }

    @Test
    void multiPartOptionsMergeAndNormalise() throws Exception {
        Config c = new Config();
        c.set("client-output-buffer-limit", "pubsub 32mb 8mb 60");
        assertThat(c.get("client-output-buffer-limit"))
                .isEqualTo("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
        assertThatThrownBy(() -> c.set("save", "60")).hasMessage("Invalid save parameters");
        assertThatThrownBy(() -> c.set("save", "0 10")).hasMessage("Invalid save parameters");
        c.set("save", "900 1 60 0");
        assertThat(c.get("save")).isEqualTo("900 1 60 0");
        assertThat(new Config().get("save")).isEqualTo("3600 1 300 100 60 10000");
    }

    @Test
    void globMatchesNamesAndAliases() {
        Config c = new Config();
        assertThat(c.matching("maxmemory*").keySet()).contains("maxmemory", "maxmemory-policy", "maxmemory-samples");
        assertThat(c.matching("slaveof").keySet()).containsExactly("slaveof");
        assertThat(c.matching("nosuch")).isEmpty();
    }
}
