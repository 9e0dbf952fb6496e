package io.spinel.server;

import io.spinel.core.config.Config;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line as redis-server 7.0 reads it: "--name" starts an option, except right after a
 * bare option name, whose value it then is; "--save" and "--sentinel" may have none. The error
 * cases are those of Redis's TCL introspection test, each naming the line Redis names.
 */
class CommandLineOptionsTest {
    private static String lines(String... args) throws Exception {
        return ConfigLoader.optionsToConfig(List.of(args));
    }

    private static String error(String... args) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                () -> new ConfigLoader(new Config()).load(lines(args), null));
        assertThat(t).isInstanceOf(ConfigLoader.ConfigError.class);
        return ((ConfigLoader.ConfigError) t).report("x");
    }

    @Test
    void optionsAndValues() throws Exception {
        assertThat(lines("--port", "7000", "--save", "", "--loglevel", "verbose"))
                .isEqualTo("port \"7000\"\nsave \"\"\nloglevel \"verbose\"\n");
        assertThat(lines("--maxmemory 700mb", "--maxmemory-policy volatile-lru"))
                .isEqualTo("maxmemory 700mb\nmaxmemory-policy volatile-lru\n");
        // --save with no value before another option, or last: an empty one
        assertThat(lines("--save", "--port", "7000")).isEqualTo("save \"\"\nport \"7000\"\n");
        assertThat(lines("--port", "7000", "--save")).isEqualTo("port \"7000\"\nsave \"\"\n");
    }

    /** Words before any option name make a line of their own, as Redis reads them ("wrong usage that we support anyway"). */
    @Test
    void wordsBeforeTheFirstOptionAreALine() throws Exception {
        String text = lines("loglevel", "verbose", "--maxmemory '700mb'", "--maxmemory-policy 'volatile-lru'");
        assertThat(text).isEqualTo("\"loglevel\" \"verbose\"\nmaxmemory '700mb'\nmaxmemory-policy 'volatile-lru'\n");
        Config config = new Config();
        new ConfigLoader(config).load(text, null);
        assertThat(config.get("loglevel")).isEqualTo("verbose");
        assertThat(config.get("maxmemory")).isEqualTo("734003200");
        assertThat(config.get("maxmemory-policy")).isEqualTo("volatile-lru");
    }

    /** Options the engine implements outside its own option table are accepted at start too. */
    @Test
    void optionsImplementedOutsideTheEngineTableAreAccepted() throws Exception {
        Config config = new Config();
        new ConfigLoader(config).load(lines("--maxmemory-clients", "10%", "--oom-score-adj", "yes", "--shutdown-timeout", "3",
                "--bind-source-addr", "127.0.0.1"), null);
        assertThat(config.get("maxmemory-clients")).isEqualTo("10%");
        assertThat(config.get("oom-score-adj")).isEqualTo("yes");
        assertThat(config.get("shutdown-timeout")).isEqualTo("3");
    }

    @Test
    void aValueMayStartWithDashesRightAfterItsOption() throws Exception {
        assertThat(lines("--port", "--loglevel", "verbose")).isEqualTo("port \"--loglevel\" \"verbose\"\n");
        assertThat(lines("--logfile", "--my--log--file", "--loglevel", "--bla"))
                .isEqualTo("logfile \"--my--log--file\"\nloglevel \"--bla\"\n");
    }

    @Test
    void errorsNameTheLineRedisNames() {
        assertThat(error("--port")).contains(">>> 'port'\nwrong number of arguments");
        assertThat(error("--port", "6380", "--loglevel")).contains(">>> 'loglevel'\nwrong number of arguments");
        assertThat(error("--port", "7001", "7002")).contains(">>> 'port \"7001\" \"7002\"'\nwrong number of arguments");
        assertThat(error("--port", "--loglevel", "verbose"))
                .contains(">>> 'port \"--loglevel\" \"verbose\"'\nwrong number of arguments");
        assertThat(error("--port", "--bla", "--loglevel", "verbose"))
                .contains(">>> 'port \"--bla\"'\nargument couldn't be parsed into an integer");
        assertThat(error("--logfile", "--my--log--file", "--loglevel", "--bla"))
                .contains(">>> 'loglevel \"--bla\"'\nargument(s) must be one of the following");
        assertThat(error("--shutdown-on-sigint")).contains(">>> 'shutdown-on-sigint'\nargument(s) must be one of the following");
        assertThat(error("--replicaof", "--127.0.0.1", "abc")).contains(">>> 'replicaof \"--127.0.0.1\" \"abc\"'\nInvalid master port");
        assertThat(error("--replicaof", "--127.0.0.1", "--abc")).contains(">>> 'replicaof \"--127.0.0.1\"'\nwrong number of arguments");
    }
}
