package io.spinel.core.keyspace;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.embedded.SpinelClient;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A collection value is its own keyspace entry: one key at a time, moved as the same object. */
class DbObjectTest {
    private static SetValue setOf(int... members) {
        SetValue s = SetValue.newIntset();
        for (int m : members) s.addInt(m, 512);
        return s;
    }

    @Test
    void aStoredValueCannotTakeASecondKeyUntilItLeavesItsTable() {
        Db db = new Keyspace(1, Keyspace.Listener.NONE).db(0);
        SetValue s = setOf(1, 2, 3);
        byte[] first = Bytes.ascii("first");
        db.put(first, s.asEntry(first, -1, 0));
        long stored = db.memoryUsage();

        // storing it under a second key would make two keys share one mutable set
        assertThatThrownBy(() -> s.asEntry(Bytes.ascii("second"), -1, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(Entries.key(db.find(first))).isEqualTo(first);

        // once out of its table it moves (RENAME): same object, new key, counted once
        db.remove(first);
        byte[] other = Bytes.ascii("other");
        db.put(other, s.asEntry(other, -1, 0));
        db.settle();
        assertThat(db.find(other)).isSameAs(s);
        assertThat(db.find(first)).isNull();
        assertThat(Entries.key(s)).isEqualTo(other);
        assertThat(db.memoryUsage()).isEqualTo(stored); // a key of the same length
    }

    @Test
    void renameAndSpopWithACountKeepTheCollectionsKeyFields() {
        try (EmbeddedSpinel spinel = EmbeddedSpinel.start()) {
            SpinelClient c = spinel.client();
            List<String> add = new ArrayList<>(List.of("SADD", "s"));
            for (int i = 0; i < 20; i++) add.add(Integer.toString(i));
            c.execute(add.toArray(new String[0]));
            c.execute("PEXPIRE", "s", "100000");
            c.execute("RENAME", "s", "t");
            assertThat((Long) c.execute("PTTL", "t")).isBetween(90_000L, 100_000L);

            // 2 of 20 left: Redis builds the survivors into a new set; the key keeps its TTL
            assertThat((List<?>) c.execute("SPOP", "t", "18")).hasSize(18);
            assertThat(c.execute("SCARD", "t")).isEqualTo(2L);
            assertThat(c.execute("OBJECT", "ENCODING", "t")).isEqualTo("intset");
            assertThat((Long) c.execute("PTTL", "t")).isBetween(90_000L, 100_000L);
        }
    }
}
