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
    void harmlessOptionsAreAcceptedAndRemembered() throws Exception {
        // (tls-port was the last option Spinel refused away from its default; none is left)
        Config c = new Config();
        c.set("tls-port", "6380");
        assertThat(c.ignoredInUse()).doesNotContain("tls-port");
        c.set("lazyfree-lazy-server-del", "yes"); // harmless: accepted and remembered for the log
        assertThat(c.ignoredInUse()).contains("lazyfree-lazy-server-del");
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
    void valuesReadBackInRedisCanonicalText() throws Exception {
        // what CONFIG GET shows is also what CONFIG REWRITE writes, so both must be Redis's text
        Config c = new Config();
        c.set("shutdown-on-sigterm", "NOW nosave force now");
        assertThat(c.get("shutdown-on-sigterm")).isEqualTo("nosave now force");
        c.set("shutdown-on-sigterm", "default");
        assertThat(c.get("shutdown-on-sigterm")).isEqualTo("default");
        c.set("shutdown-on-sigint", "default save");
        assertThat(c.get("shutdown-on-sigint")).isEqualTo("save");
        assertThatThrownBy(() -> c.set("shutdown-on-sigint", "save nosave"))
                .hasMessage("shutdown options SAVE and NOSAVE can't be used simultaneously");
        assertThatThrownBy(() -> c.set("shutdown-on-sigint", "later"))
                .hasMessage("argument(s) must be one of the following: default, save, nosave, now, force");
        c.set("oom-score-adj", "relative");
        assertThat(c.get("oom-score-adj")).isEqualTo("yes");
        c.set("oom-score-adj-values", "0 +0200 -2000");
        assertThat(c.get("oom-score-adj-values")).isEqualTo("0 200 -2000");
        assertThatThrownBy(() -> c.set("oom-score-adj-values", "0 200 2001"))
                .hasMessage("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
        assertThatThrownBy(() -> c.set("oom-score-adj-values", "0 200")).hasMessage("wrong number of arguments");
        c.set("latency-tracking-info-percentiles", "50.0 99.990 1e1 0.0000001 100");
        assertThat(c.get("latency-tracking-info-percentiles")).isEqualTo("50 99.99 10 0 100");
        c.set("latency-tracking-info-percentiles", "");
        assertThat(c.get("latency-tracking-info-percentiles")).isEmpty();
        assertThatThrownBy(() -> c.set("latency-tracking-info-percentiles", "50 101"))
                .hasMessage("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
        assertThatThrownBy(() -> c.set("latency-tracking-info-percentiles", "fifty"))
                .hasMessage("Invalid latency-tracking-info-percentiles parameters");
        c.set("notify-keyspace-events", "KEA");
        assertThat(c.get("notify-keyspace-events")).isEqualTo("AKE");
        assertThatThrownBy(() -> c.set("notify-keyspace-events", "KEq"))
                .hasMessage("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
    }

    @Test
    void fixedSixDecimalsLikePrintf() {
        assertThat(ConfigSupport.fixedSixTrimmed(99.9)).isEqualTo("99.9");
        assertThat(ConfigSupport.fixedSixTrimmed(0.0000005)).isEqualTo("0"); // as glibc prints it
        assertThat(ConfigSupport.fixedSixTrimmed(0.0000015)).isEqualTo("0.000002");
        assertThat(ConfigSupport.fixedSixTrimmed(12.5)).isEqualTo("12.5");
        assertThat(ConfigSupport.fixedSixTrimmed(100)).isEqualTo("100");
    }

    @Test
    void globMatchesNamesAndAliases() {
        Config c = new Config();
        assertThat(c.matching("maxmemory*").keySet()).contains("maxmemory", "maxmemory-policy", "maxmemory-samples");
        assertThat(c.matching("slaveof").keySet()).containsExactly("slaveof");
        assertThat(c.matching("nosuch")).isEmpty();
    }
}
