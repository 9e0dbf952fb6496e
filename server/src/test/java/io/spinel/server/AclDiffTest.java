package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.Resp;
import io.spinel.server.testing.ServerPair;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ACL users compared with redis-server: the same rules, the same users authenticating and running
 * the same commands, and every reply compared byte for byte, except where Redis's own order is
 * random (the single-command rules of a description follow its command dictionary, which a
 * random hash seed orders: those tokens are compared as a set) and where the values are the
 * servers' own (an ACL LOG entry's age and client line).
 */
class AclDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private final List<String> diffs = new ArrayList<>();

    private TwinClient twin() throws IOException {
        return new TwinClient(servers.redis().port(), servers.spinel().port(), diffs);
    }

    @AfterEach
    void resetUsers() throws IOException {
        for (int port : new int[] {servers.redis().port(), servers.spinel().port()}) {
            try (RawClient c = new RawClient(port)) {
                for (byte[] name : Resp.elements(c.call("ACL", "USERS"))) {
                    String n = bulkText(name);
                    if (!n.equals("default")) c.call("ACL", "DELUSER", n);
                }
                c.call("ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all");
                c.call("ACL", "LOG", "RESET");
                c.call("CONFIG", "SET", "requirepass", "");
                c.call("FLUSHALL");
            }
        }
    }

    private static String bulkText(byte[] bulk) {
        String s = new String(bulk, StandardCharsets.ISO_8859_1);
        return s.substring(s.indexOf("\r\n") + 2, s.length() - 2);
    }

    /** Sends to both, compares with the rule lists' single-command tokens sorted. */
    private void callRules(TwinClient t, String... args) throws IOException {
        List<byte[]> cmd = TwinClient.bytes(args);
        compare(String.join(" ", args), normalizeRules(t.r.call(cmd)), normalizeRules(t.s.call(cmd)));
    }

    private void compare(String what, String a, String b) {
        if (!a.equals(b)) diffs.add(what + "\n  redis:  " + a.replace("\r\n", "\\r\\n") + "\n  spinel: " + b.replace("\r\n", "\\r\\n"));
    }

    /**
     * A reply's text with each run of single-command rules ("+get", "-config|set", "+select|0") in
     * a line sorted: Redis emits them in its command dictionary's (random) order.
     */
    static String normalizeRules(byte[] reply) {
        String text = new String(reply, StandardCharsets.ISO_8859_1);
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\r\n", -1)) {
            if (out.length() > 0) out.append("\r\n");
            if (!line.contains("@all")) {
                out.append(line);
                continue;
            }
            String[] tokens = line.split(" ", -1);
            int i = 0;
            List<String> result = new ArrayList<>();
            while (i < tokens.length) {
                if (!isSingleCommand(tokens[i])) {
                    result.add(tokens[i++]);
                    continue;
                }
                List<String> run = new ArrayList<>();
                String close = "";
                while (i < tokens.length && isSingleCommand(tokens[i])) {
                    String tok = tokens[i++];
                    if (tok.endsWith(")")) {
                        run.add(tok.substring(0, tok.length() - 1));
                        close = ")";
                        break;
                    }
                    run.add(tok);
                }
                run.sort(null);
                run.set(run.size() - 1, run.get(run.size() - 1) + close);
                result.addAll(run);
            }
            out.append(String.join(" ", result));
        }
        return out.toString();
    }

    private static boolean isSingleCommand(String tok) {
        return tok.length() > 1 && (tok.charAt(0) == '+' || tok.charAt(0) == '-') && tok.charAt(1) != '@';
    }

    @Test
    void rulesErrorsAndDescriptions() throws Exception {
        try (TwinClient t = twin()) {
            String hash = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"; // "password"
            String[][] setusers = {
                    {"alice"},
                    {"alice", "on", ">pw", "~app:*", "+get"},
                    {"alice", ">pw2", "<pw", "#" + hash, "!" + hash},
                    {"bob", "on", "nopass", "%R~r:*", "%W~w:*", "%RW~rw:*", "%WR~wr:*", "&chan:*", "+@read", "-@dangerous"},
                    {"bob", "%R~rw:*", "~r:*", "&chan:*", "&other"},
                    {"carol", "on", "~*", "&*", "+@all", "-@admin", "-@dangerous"},
                    {"carol", "+@all", "-config|set"},
                    {"dave", "reset", "on", "(+get ~x)", "(+set", "~y)", "(&c +publish)"},
                    {"dave", "clearselectors", "skip-sanitize-payload"},
                    {"eve", "allkeys", "allchannels", "allcommands", "nocommands", "resetkeys", "resetchannels"},
                    {"eve", "+@all", "-@read", "+@string", "-@hash", "+@geo"},
                    {"frank", "-@all", "+@write", "+@read", "-@keyspace", "+@connection"},
                    {"frank", "-@all", "+client", "-client|kill", "+select|0", "+select|1", "+SELECT|1", "+debug|object"},
                    {"grace", "+@ALL", "RESETPASS", "NOPASS", "ON", "OFF", "Reset"},
                    // errors (nothing is changed)
                    {"eve", "+acl|whoami|x"},
                    {"eve", "+get|"},
                    {"eve", "+nosuch"},
                    {"eve", "-nosuch"},
                    {"eve", "+sentinel"}, // (a Sentinel's command: unknown on a data server)
                    {"eve", "+sentinel|masters"},
                    {"eve", "-@nosuch"},
                    {"eve", "+foo|bar|baz"},
                    {"eve", "~*", "~foo"},
                    {"eve", "&*", "&foo"},
                    {"eve", "#abc"},
                    {"eve", "#" + hash.toUpperCase()},
                    {"eve", "<never-set"},
                    {"eve", "(+get"},
                    {"eve", "(+get", "~x"},
                    {"eve", "(+get ~x", "+nosuch)"},
                    {"eve", "bad rule"},
                    {"eve", "~a b"},
                    {"eve", "%X~x"},
                    {"eve", "%RR~x"},
                    {"eve", "on", "+get", "+nosuch"},
                    {"a b"},
                    {"nul\0name"},
                    {"eve", ""},
                    {"eve", "(", "+get)"},
                    {"eve", "()"},
            };
            for (String[] u : setusers) {
                String[] args = new String[u.length + 2];
                args[0] = "ACL";
                args[1] = "SETUSER";
                System.arraycopy(u, 0, args, 2, u.length);
                t.call(args);
                callRules(t, "ACL", "GETUSER", u[0]);
            }
            callRules(t, "ACL", "LIST");
            t.call("ACL", "USERS");
            t.call("ACL", "GETUSER", "nobody");
            t.call("ACL", "DELUSER", "default");
            t.call("ACL", "DELUSER", "alice", "default");
            t.call("ACL", "DELUSER", "alice", "nobody", "alice");
            t.call("ACL", "USERS");
            t.call("ACL", "CAT");
            t.call("ACL", "CAT", "nosuch");
            t.call("ACL", "CAT", "a", "b");
            t.call("ACL", "GENPASS", "0");
            t.call("ACL", "GENPASS", "4097");
            t.call("ACL", "GENPASS", "x");
            t.call("ACL", "GENPASS", "1", "2");
            t.call("ACL", "WHOAMI");
            t.call("ACL", "LOG", "x");
            t.call("ACL", "LOG", "1", "2");
            t.call("ACL", "LOAD");
            t.call("ACL", "SAVE");
            t.call("ACL", "HELP");
            t.call("ACL", "NOSUCH");
            t.call("ACL");
            t.s.call("HELLO", "3");
            t.r.call("HELLO", "3");
            callRules(t, "ACL", "GETUSER", "dave");
            callRules(t, "ACL", "GETUSER", "bob");
            t.call("ACL", "SETUSER", "sel", "(~x +get)", "(&y +@read)");
            callRules(t, "ACL", "GETUSER", "sel");
        }
        assertThat(diffs).isEmpty();
        // GENPASS: hex digits, (bits + 3) / 4 of them
        try (RawClient c = new RawClient(servers.spinel().port())) {
            assertThat(c.callString("ACL", "GENPASS")).matches("\\$64\r\n[0-9a-f]{64}\r\n");
            assertThat(c.callString("ACL", "GENPASS", "5")).matches("\\$2\r\n[0-9a-f]{2}\r\n");
        }
    }

    @Test
    void categoriesListTheSameCommands() throws Exception {
        try (RawClient r = new RawClient(servers.redis().port()); RawClient s = new RawClient(servers.spinel().port())) {
            for (byte[] cat : Resp.elements(r.call("ACL", "CAT"))) {
                String name = bulkText(cat);
                Set<String> a = names(r.call("ACL", "CAT", name));
                Set<String> b = names(s.call("ACL", "CAT", name));
                // CLIENT SETINFO and NO-TOUCH are Redis 7.2's, which Spinel has
                b.removeAll(Set.of("client|setinfo", "client|no-touch"));
                assertThat(b).as(name).isEqualTo(a);
            }
        }
    }

    private static Set<String> names(byte[] reply) {
        Set<String> out = new HashSet<>();
        for (byte[] e : Resp.elements(reply)) out.add(bulkText(e));
        return out;
    }

    @Test
    void permissionsOfAuthenticatedUsers() throws Exception {
        try (TwinClient admin = twin(); TwinClient u = twin()) {
            admin.call("SET", "app:1", "v");
            admin.call("RPUSH", "r:list", "a", "b");
            admin.call("ACL", "SETUSER", "alice", "on", ">pw", "~app:*", "%R~r:*", "%W~w:*", "&news.*",
                    "+@all", "-@dangerous", "-config", "+config|get", "-flushall", "+select|0", "-select");
            admin.call("ACL", "SETUSER", "bob", "on", "nopass", "resetchannels", "+@read", "+@pubsub",
                    "(~x:* +@write)", "(&x.* +publish)", "+auth", "+acl|whoami");
            u.call("AUTH", "alice", "wrong");
            u.call("AUTH", "nobody", "pw");
            u.call("AUTH", "alice", "pw");
            u.call("ACL", "WHOAMI");
            String[][] commands = {
                    {"GET", "app:1"}, {"GET", "other"}, {"SET", "app:2", "x"}, {"DEL", "app:2"},
                    {"LRANGE", "r:list", "0", "-1"}, {"RPUSH", "r:list", "c"}, {"SET", "w:1", "x"}, {"GET", "w:1"},
                    {"LMOVE", "r:list", "w:list", "LEFT", "RIGHT"}, {"LMOVE", "w:list", "r:list", "LEFT", "RIGHT"},
                    {"COPY", "r:list", "w:copy"}, {"MGET", "app:1", "r:list", "w:1"}, {"MGET", "app:1", "zz"},
                    {"CONFIG", "GET", "maxmemory"}, {"CONFIG", "SET", "maxmemory", "0"}, {"FLUSHALL"},
                    {"SELECT", "0"}, {"SELECT", "1"}, {"KEYS", "*"}, {"PUBLISH", "news.a", "m"}, {"PUBLISH", "other", "m"},
                    {"SORT", "app:1"}, {"SWAPDB", "0", "1"}, {"EVAL", "return redis.call('get', KEYS[1])", "1", "app:1"},
                    {"EVAL", "return redis.call('get', 'other')", "0"}, {"EVAL", "return redis.pcall('set', 'other', 1)", "0"},
                    {"EVAL", "return redis.call('flushall')", "0"}, {"EVAL", "return redis.acl_check_cmd('get', 'other')", "0"},
                    {"EVAL", "return redis.acl_check_cmd('get', 'app:1')", "0"},
                    {"EVAL", "return redis.acl_check_cmd('nosuch')", "0"},
                    {"GETRANGE", "app:1", "0", "1"}, {"OBJECT", "ENCODING", "app:1"}, {"TYPE", "r:list"},
                    {"RENAME", "app:1", "w:moved"}, {"EXISTS", "app:1", "w:1"},
                    {"MULTI"}, {"GET", "app:1"}, {"GET", "other"}, {"FLUSHALL"}, {"EXEC"},
                    {"MULTI"}, {"GET", "app:1"}, {"EXEC"},
                    {"MULTI"}, {"AUTH", "alice", "bad"}, {"EXEC"},
                    {"ACL", "LOG", "1"},
            };
            for (String[] c : commands) u.call(c);
            // permissions changed between MULTI and EXEC are checked again at EXEC
            u.call("MULTI");
            u.call("GET", "app:1");
            u.call("SET", "app:3", "x");
            admin.call("ACL", "SETUSER", "alice", "-set");
            u.call("EXEC");
            // selectors
            u.call("AUTH", "bob", "any");
            String[][] bobs = {
                    {"GET", "x:1"}, {"SET", "x:1", "v"}, {"SET", "y:1", "v"}, {"GET", "y:1"}, {"PUBLISH", "x.1", "m"},
                    {"PUBLISH", "y.1", "m"}, {"DEL", "x:1"}, {"HSET", "x:h", "f", "v"}, {"SUNIONSTORE", "x:s", "y:s"},
                    {"ACL", "WHOAMI"}, {"ACL", "USERS"},
            };
            for (String[] c : bobs) u.call(c);
            // the admin's view of what was denied
            admin.call("ACL", "DRYRUN", "alice", "GET", "other");
            admin.call("ACL", "DRYRUN", "alice", "GET", "app:1");
            admin.call("ACL", "DRYRUN", "alice", "SET", "r:1", "v");
            admin.call("ACL", "DRYRUN", "alice", "PUBLISH", "other", "m");
            admin.call("ACL", "DRYRUN", "alice", "SUBSCRIBE", "news.x", "other");
            admin.call("ACL", "DRYRUN", "alice", "PSUBSCRIBE", "news.*");
            admin.call("ACL", "DRYRUN", "alice", "PSUBSCRIBE", "news.x*");
            admin.call("ACL", "DRYRUN", "alice", "SELECT", "0");
            admin.call("ACL", "DRYRUN", "alice", "SELECT", "1");
            admin.call("ACL", "DRYRUN", "alice", "CONFIG", "SET", "maxmemory", "1");
            admin.call("ACL", "DRYRUN", "alice", "CONFIG");
            admin.call("ACL", "DRYRUN", "alice", "NOSUCH");
            admin.call("ACL", "DRYRUN", "alice", "GET");
            admin.call("ACL", "DRYRUN", "nobody", "GET", "x");
            admin.call("ACL", "DRYRUN", "bob", "SET", "x:1", "v");
            admin.call("ACL", "DRYRUN", "bob", "PUBLISH", "x.1", "m");
            compareLog(admin, "ACL", "LOG");
            compareLog(admin, "ACL", "LOG", "3");
            admin.call("ACL", "LOG", "0");
            admin.call("ACL", "LOG", "RESET");
            admin.call("ACL", "LOG");
            // RESET goes back to the default user
            u.call("RESET");
            u.call("ACL", "WHOAMI");
            u.call("HELLO", "2", "AUTH", "alice", "bad");
            u.call("HELLO", "2", "AUTH", "alice", "pw", "SETNAME", "x");
            u.call("ACL", "WHOAMI");
        }
        assertThat(diffs).isEmpty();
    }

    /** ACL LOG without each entry's age and client line (the servers' own). */
    private void compareLog(TwinClient t, String... args) throws IOException {
        compare(String.join(" ", args), logEntries(t.r.call(args)), logEntries(t.s.call(args)));
    }

    private static String logEntries(byte[] reply) {
        List<byte[]> entries = Resp.elements(reply);
        if (entries == null) return new String(reply, StandardCharsets.ISO_8859_1);
        StringBuilder sb = new StringBuilder();
        for (byte[] e : entries) {
            List<byte[]> fields = Resp.elements(e);
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                String key = bulkText(fields.get(i));
                if (key.equals("age-seconds") || key.equals("client-info")) continue;
                sb.append(key).append('=').append(new String(fields.get(i + 1), StandardCharsets.ISO_8859_1)).append(' ');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Test
    void passwordsAndTheDefaultUser() throws Exception {
        try (TwinClient admin = twin(); TwinClient u = twin()) {
            admin.call("AUTH", "pw");
            admin.call("AUTH", "default", "anything");
            admin.call("CONFIG", "SET", "requirepass", "secret");
            callRules(admin, "ACL", "GETUSER", "default");
            try (TwinClient fresh = twin()) {
                fresh.call("GET", "k");
                fresh.call("ACL", "WHOAMI");
                fresh.call("AUTH", "wrong");
                fresh.call("AUTH", "secret");
                fresh.call("ACL", "WHOAMI");
                fresh.call("RESET");
                fresh.call("GET", "k");
                fresh.call("HELLO", "3");
                // (the reply holds the connection's id: compared by its start)
                List<byte[]> hello = TwinClient.bytes("HELLO", "3", "AUTH", "default", "secret");
                assertThat(new String(fresh.r.call(hello), StandardCharsets.ISO_8859_1)).startsWith("%7");
                assertThat(new String(fresh.s.call(hello), StandardCharsets.ISO_8859_1)).startsWith("%7");
                fresh.call("GET", "k");
            }
            admin.call("AUTH", "secret");
            admin.call("ACL", "SETUSER", "default", ">second");
            callRules(admin, "ACL", "GETUSER", "default");
            admin.call("CONFIG", "GET", "requirepass");
            admin.call("ACL", "SETUSER", "default", "off");
            try (TwinClient fresh = twin()) {
                fresh.call("AUTH", "second");
                fresh.call("PING");
            }
            admin.call("ACL", "SETUSER", "default", "on", "nopass");
            try (TwinClient fresh = twin()) {
                fresh.call("PING");
                fresh.call("AUTH", "x");
            }
            u.call("PING");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void deletedUsersAndRevokedChannelsCloseConnections() throws Exception {
        try (TwinClient admin = twin(); TwinClient u = twin(); TwinClient sub = twin(); TwinClient psub = twin()) {
            admin.call("ACL", "SETUSER", "alice", "on", "nopass", "~*", "&news.*", "&n*", "+@all");
            u.call("AUTH", "alice", "x");
            sub.call("AUTH", "alice", "x");
            sub.call("SUBSCRIBE", "news.1");
            psub.call("AUTH", "alice", "x");
            psub.call("PSUBSCRIBE", "n*");
            // the same patterns plus one: nobody loses anything
            admin.call("ACL", "SETUSER", "alice", "&other");
            sub.call("PING");
            psub.call("PING");
            // the pattern subscriber's "n*" is no longer allowed (patterns must match literally)
            admin.call("ACL", "SETUSER", "alice", "resetchannels", "&news.*", "&n?");
            assertClosed(psub);
            sub.call("PING");
            admin.call("ACL", "SETUSER", "alice", "resetchannels");
            assertClosed(sub);
            admin.call("ACL", "DELUSER", "alice");
            assertClosed(u);
            // a user deleting itself gets its reply, then the connection closes
            admin.call("ACL", "SETUSER", "bob", "on", "nopass", "+@all");
            admin.call("AUTH", "bob", "x");
            admin.call("ACL", "DELUSER", "bob");
            assertClosed(admin);
        }
        assertThat(diffs).isEmpty();
    }

    private static void assertClosed(TwinClient t) throws IOException {
        t.r.setTimeout(2000);
        t.s.setTimeout(2000);
        assertThat(t.r.isClosedByPeer()).as("redis closed the connection").isTrue();
        assertThat(t.s.isClosedByPeer()).as("spinel closed the connection").isTrue();
    }

    @Test
    void sortPatternsNeedEveryKey() throws Exception {
        try (TwinClient admin = twin(); TwinClient u = twin()) {
            admin.call("RPUSH", "l", "1", "2");
            admin.call("SET", "w_1", "5");
            admin.call("ACL", "SETUSER", "r", "on", "nopass", "%R~*", "+@all");
            admin.call("ACL", "SETUSER", "k", "on", "nopass", "~l", "~w_*", "+@all");
            u.call("AUTH", "r", "x");
            u.call("SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*");
            u.call("SORT", "l", "BY", "nosort");
            u.call("SORT", "l", "BY", "w_*", "STORE", "dst");
            u.call("AUTH", "k", "x");
            u.call("SORT", "l", "BY", "w_*");
            u.call("SORT", "l", "GET", "#");
            u.call("SORT", "l", "BY", "constant");
            u.call("EVAL", "return redis.pcall('sort', KEYS[1], 'by', 'w_*')", "1", "l");
        }
        assertThat(diffs).isEmpty();
    }

    /**
     * Random rules applied to a user, then random commands checked with ACL DRYRUN: what each
     * SETUSER answers, the user's description, and each DRYRUN verdict must be Redis's.
     */
    @Test
    void randomRulesGiveRedisVerdicts() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        Random rnd = new Random(seed);
        String hash = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8";
        String[] rules = {
                "on", "off", "nopass", "resetpass", ">pw1", ">pw2", "<pw1", "#" + hash, "!" + hash, "#bad", "reset",
                "~*", "allkeys", "resetkeys", "~app:*", "%R~r:*", "%W~w:*", "%RW~rw:*", "~x?", "%R~*", "%W~*",
                "&*", "allchannels", "resetchannels", "&ch:*", "&news", "&n*", "+@all", "-@all", "allcommands",
                "nocommands", "+@read", "-@write", "+@string", "-@dangerous", "+@admin", "-@keyspace", "+@pubsub",
                "+@scripting", "-@slow", "+@fast", "+@list", "-@hash", "+@nosuch", "+get", "-get", "+set", "-mget",
                "+config|get", "-config|set", "+config", "-config", "+client", "-client|kill", "+select|0", "+select|1",
                "+acl|whoami|x", "+get|x", "+nosuch", "-debug", "+debug|object", "(+get ~x)", "(~y +@read &c)",
                "(+@write %W~w:*)", "clearselectors", "sanitize-payload", "skip-sanitize-payload", "+eval", "+publish",
                "-publish", "+subscribe", "+psubscribe", "+sort", "+lmove", "+copy", "+object", "-object|encoding",
        };
        String[][] commands = {
                {"GET", "app:1"}, {"GET", "r:1"}, {"GET", "w:1"}, {"SET", "w:1", "v"}, {"SET", "rw:1", "v"},
                {"SET", "r:1", "v"}, {"GET", "x"}, {"GET", "xy"}, {"GET", "y"}, {"PUBLISH", "ch:1", "m"},
                {"PUBLISH", "news", "m"}, {"SUBSCRIBE", "news", "other"}, {"PSUBSCRIBE", "ch:*", "n*"},
                {"PSUBSCRIBE", "n*"}, {"CONFIG", "GET", "maxmemory"}, {"CONFIG", "SET", "maxmemory", "0"},
                {"SELECT", "0"}, {"SELECT", "1"}, {"CLIENT", "KILL", "ID", "1"}, {"CLIENT", "ID"},
                {"MGET", "app:1", "r:1"}, {"COPY", "r:1", "w:1"}, {"LMOVE", "r:1", "w:1", "LEFT", "RIGHT"},
                {"EVAL", "", "1", "app:1"}, {"SORT", "app:1"}, {"DEBUG", "OBJECT", "x"}, {"ACL", "WHOAMI"},
                {"FLUSHALL"}, {"ZUNIONSTORE", "w:1", "2", "r:1", "r:2"}, {"XREAD", "STREAMS", "r:1", "0"},
                {"OBJECT", "ENCODING", "r:1"}, {"OBJECT", "FREQ", "x"}, {"SET", "x", "1", "GET"},
                {"BITFIELD", "r:1", "GET", "u8", "0"}, {"BITFIELD", "w:1", "SET", "u8", "0", "1"},
        };
        try (TwinClient t = twin()) {
            for (int round = 0; round < 60; round++) {
                String user = "u" + (round % 4);
                int n = 1 + rnd.nextInt(4);
                String[] args = new String[n + 3];
                args[0] = "ACL";
                args[1] = "SETUSER";
                args[2] = user;
                for (int i = 0; i < n; i++) args[3 + i] = rules[rnd.nextInt(rules.length)];
                t.call(args);
                callRules(t, "ACL", "GETUSER", user);
                for (int k = 0; k < 8; k++) {
                    String[] c = commands[rnd.nextInt(commands.length)];
                    String[] dry = new String[c.length + 3];
                    dry[0] = "ACL";
                    dry[1] = "DRYRUN";
                    dry[2] = user;
                    System.arraycopy(c, 0, dry, 3, c.length);
                    t.call(dry);
                }
            }
            callRules(t, "ACL", "LIST");
        }
        assertThat(diffs).as("seed " + seed).isEmpty();
    }

    @Test
    void memoryStatsIsOneWellFormedReply() throws Exception {
        // (its map once declared one pair fewer than it sent: the next reply read the last pair)
        try (RawClient c = new RawClient(servers.spinel().port())) {
            c.call("SET", "k", "v");
            List<byte[]> pairs = Resp.elements(c.call("MEMORY", "STATS"));
            assertThat(bulkText(pairs.get(pairs.size() - 2))).isEqualTo("fragmentation.bytes");
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }
}
