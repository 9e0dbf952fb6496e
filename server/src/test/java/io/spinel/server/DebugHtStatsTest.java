package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DEBUG HTSTATS and HTSTATS-KEY in Redis's dictGetStats form: the figures agree with each other
 * and with the data (every element counted once, the distribution covering every slot), and the
 * errors are Redis's.
 */
class DebugHtStatsTest {
    private static final Pattern TABLE = Pattern.compile("Hash table 0 stats \\(main hash table\\):\n table size: (\\d+)\n"
            + " number of elements: (\\d+)\n different slots: (\\d+)\n max chain length: (\\d+)\n"
            + " avg chain length \\(counted\\): [0-9.]+\n avg chain length \\(computed\\): [0-9.]+\n"
            + " Chain length distribution:\n((?:   \\d+: \\d+ \\([0-9.]+%\\)\n)+)");

    /** Checks one table's figures; returns its number of elements. */
    private static long checkTable(String stats) {
        Matcher m = TABLE.matcher(stats);
        assertThat(m.find()).as(stats).isTrue();
        long size = Long.parseLong(m.group(1)), elements = Long.parseLong(m.group(2));
        long slots = Long.parseLong(m.group(3)), max = Long.parseLong(m.group(4));
        long coveredSlots = 0, counted = 0, longest = 0, empty = 0;
        for (String line : m.group(5).split("\n")) {
            String[] f = line.trim().split("[: ]+");
            long length = Long.parseLong(f[0]), n = Long.parseLong(f[1]);
            coveredSlots += n;
            counted += length * n;
            longest = Math.max(longest, length);
            if (length == 0) empty = n;
        }
        assertThat(coveredSlots).isEqualTo(size);
        assertThat(counted).isEqualTo(elements);
        assertThat(size - empty).isEqualTo(slots);
        assertThat(longest).isEqualTo(max);
        assertThat(elements).isLessThanOrEqualTo(size);
        return elements;
    }

    private static String text(byte[] reply) {
        String s = new String(reply, StandardCharsets.UTF_8);
        return s.substring(s.indexOf("\r\n") + 2, s.length() - 2); // the bulk string's body
    }

    @Test
    void statsDescribeTheTablesAndTheirElements() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("enable-debug-command", "yes").start();
             RawClient c = new RawClient(s.port())) {
            c.call("DEBUG", "POPULATE", "1000");
            for (int i = 0; i < 10; i++) c.call("EXPIRE", "key:" + i, "100");
            String db = text(c.call("DEBUG", "HTSTATS", "0"));
            assertThat(db).startsWith("[Dictionary HT]\n");
            int expires = db.indexOf("[Expires HT]\n");
            assertThat(expires).isPositive();
            assertThat(checkTable(db.substring(0, expires))).isEqualTo(1000);
            assertThat(checkTable(db.substring(expires))).isEqualTo(10);
            assertThat(text(c.call("DEBUG", "HTSTATS", "1"))).isEqualTo("[Dictionary HT]\nHash table 0 stats (main hash table):\n"
                    + "No stats available for empty dictionaries\n[Expires HT]\nHash table 0 stats (main hash table):\n"
                    + "No stats available for empty dictionaries\n");

            for (int i = 0; i < 600; i++) { // past every listpack limit (512 fields for hashes)
                c.call("HSET", "h", "f" + i, "v");
                c.call("SADD", "set", "m" + i);
                c.call("ZADD", "z", Integer.toString(i), "m" + i);
            }
            for (String key : new String[] {"h", "set", "z"}) {
                assertThat(checkTable(text(c.call("DEBUG", "HTSTATS-KEY", key)))).as(key).isEqualTo(600);
            }
            c.call("RPUSH", "list", "a");
            c.call("HSET", "small", "f", "v");
            String notATable = "-ERR The value stored at the specified key is not represented using an hash table\r\n";
            assertThat(c.callString("DEBUG", "HTSTATS-KEY", "list")).isEqualTo(notATable);
            assertThat(c.callString("DEBUG", "HTSTATS-KEY", "small")).isEqualTo(notATable); // listpack
            assertThat(c.callString("DEBUG", "HTSTATS-KEY", "nokey")).isEqualTo("-ERR no such key\r\n");
            assertThat(c.callString("DEBUG", "HTSTATS", "16")).isEqualTo("-ERR Out of range database\r\n");
            assertThat(c.callString("DEBUG", "HTSTATS", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        }
    }

    /**
     * A set or hash whose table is growing finishes its rehash when it is only sampled afterwards
     * (SRANDMEMBER, HRANDFIELD), as Redis's random-key sampling steps the rehash: Redis's
     * unit/type/set "SRANDMEMBER with a dict containing long chain" calls SRANDMEMBER until the
     * rehash is over, which never came when sampling left the table alone (the cron rehashes only
     * the databases' tables).
     */
    @Test
    void samplingFinishesTheRehashOfAGrowingTable() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("enable-debug-command", "yes").start();
             RawClient c = new RawClient(s.port())) {
            String[][] kinds = {{"SADD", "set", "SRANDMEMBER"}, {"HSET", "hash", "HRANDFIELD"}};
            for (String[] kind : kinds) {
                String key = kind[1];
                int n = 0;
                // write until a write starts the table's growth (past the packed encodings: 512 fields for hashes)
                while (true) {
                    String m = "member:" + n++;
                    if (kind[0].equals("HSET")) c.call("HSET", key, m, "v");
                    else c.call("SADD", key, m);
                    if (n > 600 && text(c.call("DEBUG", "HTSTATS-KEY", key)).contains("rehashing target")) break;
                    assertThat(n).as(key).isLessThan(100_000);
                }
                int calls = 0;
                while (text(c.call("DEBUG", "HTSTATS-KEY", key)).contains("rehashing target")) {
                    c.call(kind[2], key, "10");
                    assertThat(++calls).as(key + ": sampling calls before the rehash ends").isLessThan(1000);
                }
                assertThat(checkTable(text(c.call("DEBUG", "HTSTATS-KEY", key)))).as(key).isEqualTo(n);
            }
        }
    }
}
