package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ACL files (aclfile) compared with redis-server: each server has a file of its own, both get
 * the same text, and ACL LOAD's answer (every error, in Redis's words), the users it leaves and
 * the connections it closes must be the same; ACL SAVE must write the same file.
 */
class AclFileDiffTest {
    private static RedisServerProcess redis;
    private static SpinelServer spinel;
    private static Path redisFile;
    private static Path spinelFile;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed");
        Path rdir = Files.createTempDirectory("acl-redis");
        Path sdir = Files.createTempDirectory("acl-spinel");
        redisFile = rdir.resolve("users.acl");
        spinelFile = sdir.resolve("users.acl");
        String initial = "user default on nopass ~* &* +@all\nuser alice on >pw ~app:* +get\n";
        Files.writeString(redisFile, initial);
        Files.writeString(spinelFile, initial);
        redis = RedisServerProcess.start(rdir, "--aclfile", "users.acl");
        spinel = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("dir", sdir.toString())
                .option("aclfile", "users.acl").start();
    }

    @AfterAll
    static void stop() {
        if (spinel != null) spinel.close();
        if (redis != null) redis.close();
    }

    private static void write(String text) throws IOException {
        Files.write(redisFile, text.getBytes(StandardCharsets.ISO_8859_1));
        Files.write(spinelFile, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void loadIsAllOrNothingWithRedisErrors() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient admin = new TwinClient(redis.port(), spinel.port(), diffs)) {
            admin.call("ACL", "LIST");
            String[] files = {
                    "user default on nopass ~* &* +@all\nuser bob on >x ~b:* +@read\n\n   \n",
                    "user bob on +nosuch +alsonot\n",
                    "user bob on bogus ~a b\n",
                    "user bob on\nuser bob off\n",
                    "user\n",
                    "alice on\n",
                    // (an unclosed "(" is left out: redis-server 7.0.15 crashes on it in ACL LOAD, Spinel
                    // answers "users.acl:1: Unmatched parenthesis in selector definition." and changes nothing)
                    "user carol on (+get ~x) (&c +publish)\n",
                    "user dan  on  ~x\n",
                    "user eve #abc\n",
                    "user eve on ~* ~x\n",
                    "user frank on nopass ~* &* +@all\r\nuser default on nopass ~* &* +@all -flushall\r\n",
                    // no default user in the file: it is made anew, with every permission
                    "",
            };
            for (String f : files) {
                write(f);
                admin.call("ACL", "LOAD");
                admin.call("ACL", "LIST");
            }
            Files.writeString(spinelFile, "user carol on (+get ~x\n");
            assertThat(admin.s.callString("ACL", "LOAD")).isEqualTo("-ERR users.acl:1: Unmatched parenthesis in selector "
                    + "definition.WARNING: ACL errors detected, no change to the previously active ACL rules was performed\r\n");
            // ACL SAVE writes the users back: the same file on both
            write("user zed on >pw %R~r:* &c:* +@read -get (+set ~w)\nuser default on nopass ~* &* +@all\n");
            admin.call("ACL", "LOAD");
            admin.call("ACL", "SETUSER", "amy", "on", "nopass", "+get");
            admin.call("ACL", "SAVE");
            assertThat(Files.readString(spinelFile)).isEqualTo(Files.readString(redisFile));
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void loadClosesTheConnectionsOfTheUsersItReplaces() throws Exception {
        List<String> diffs = new ArrayList<>();
        write("user default on nopass ~* &* +@all\nuser alice on nopass ~* +@all\n");
        try (TwinClient admin = new TwinClient(redis.port(), spinel.port(), diffs);
             TwinClient u = new TwinClient(redis.port(), spinel.port(), diffs)) {
            admin.call("ACL", "LOAD");
            u.call("AUTH", "alice", "x");
            u.call("ACL", "WHOAMI");
            admin.call("ACL", "LOAD");
            // alice is in the new file too, but as a new user: her connection is closed
            for (RawClient c : new RawClient[] {u.r, u.s}) {
                c.setTimeout(2000);
                assertThat(c.isClosedByPeer()).isTrue();
            }
            admin.call("PING");
        }
        assertThat(diffs).isEmpty();
    }
}
