package io.spinel.core.keyspace;

import io.spinel.core.cluster.KeySlot;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.util.NativeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The per-slot key index of cluster mode ({@link SlotIndex}): after every change made through any
 * path that adds or removes keys (new keys, overwrites, deletes, expires set and cleared, lazy
 * and active expiry, FLUSHDB, SWAPDB, RENAME- and MOVE-like moves, BIG strings moved to the heap,
 * RDB loading, a swapdb load's detached databases, a forked debugging session's undo) every
 * database's index holds exactly the entries of its table, slot by slot, which is recomputed by
 * brute force from the table each time.
 */
class SlotIndexTest {
    private static final int DBS = 3;
    private Keyspace ks;
    private long now = 1_000_000_000L;

    @BeforeEach
    void keyspace() {
        ks = new Keyspace(DBS, Keyspace.Listener.NONE);
        ks.setClock(() -> now);
    }

    @AfterEach
    void freeNativeMemory() {
        ks.dropBigValues();
    }

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /**
     * Keys that crowd a few slots (hash tags) and keys spread over many, so that slots hold from
     * one key to dozens: their sets grow, shrink, and go away.
     */
    private static final List<byte[]> KEYS = new ArrayList<>();

    static {
        for (int i = 0; i < 40; i++) KEYS.add(k("{tag}" + i));
        for (int i = 0; i < 10; i++) KEYS.add(k("x{user" + (i % 3) + "}" + i));
        for (int i = 0; i < 60; i++) KEYS.add(k("key:" + i));
        KEYS.add(k(""));
        KEYS.add(new byte[]{0, (byte) 0xff, '{', (byte) 0x80, '}'});
        KEYS.add(k("x".repeat(200)));
    }

    private static byte[] string(byte[] key, String value, long expire) {
        byte[] v = k(value);
        return StringEntry.create(key, 0, key.length, v, 0, v.length, expire, 0);
    }

    private static DbObject set(byte[] key, long expire) {
        return SetValue.newIntset().asEntry(key, expire, 0);
    }

    // ---- the check ----------------------------------------------------------------------------

    /** The index's per-slot sets, read from its fields: identity is what must match the table. */
    private static Object[][] sets(Db db) throws ReflectiveOperationException {
        Field f = Db.class.getDeclaredField("keysBySlot");
        f.setAccessible(true);
        SlotIndex index = (SlotIndex) f.get(db);
        Field s = SlotIndex.class.getDeclaredField("sets");
        s.setAccessible(true);
        return (Object[][]) s.get(index);
    }

    /** The index of db against a recomputation from its table, through the API and inside. */
    private static void verify(Db db, String step) throws ReflectiveOperationException {
        assertThat(db.slotIndexed()).as(step).isTrue();
        Map<Integer, Set<Object>> expected = new HashMap<>();
        db.forEach(e -> expected.computeIfAbsent(SlotIndex.slotOf(e), x -> Collections.newSetFromMap(new IdentityHashMap<>())).add(e));
        // every slot's count, compared in a plain loop (an assertion per slot costs seconds a run)
        List<String> wrongCounts = new ArrayList<>();
        long total = 0;
        for (int slot = 0; slot < KeySlot.SLOTS; slot++) {
            int n = db.countKeysInSlot(slot);
            Set<Object> want = expected.get(slot);
            if (n != (want == null ? 0 : want.size())) wrongCounts.add("slot " + slot + ": " + n + " for " + want);
            total += n;
        }
        assertThat(wrongCounts).as("%s: db %d counts", step, db.id()).isEmpty();
        assertThat(total).as(step).isEqualTo(db.size());
        Object[][] sets = sets(db);
        long setSlots = 0;
        int setCount = 0;
        if (sets != null) {
            for (int slot = 0; slot < KeySlot.SLOTS; slot++) {
                Object[] set = sets[slot];
                Set<Object> want = expected.get(slot);
                if (set == null) {
                    if (want != null) assertThat(want).as("%s: db %d slot %d has keys but no set", step, db.id(), slot).isEmpty();
                    continue;
                }
                assertThat(want).as("%s: db %d slot %d: an empty set is kept", step, db.id(), slot).isNotNull();
                Set<Object> held = Collections.newSetFromMap(new IdentityHashMap<>());
                for (Object e : set) if (e != null) held.add(e);
                assertThat(held).as("%s: db %d slot %d entries", step, db.id(), slot).isEqualTo(want);
                // at most 3/4 full, so probes stay short; at least 1/8 unless it is the smallest,
                // so a slot whose keys were deleted gives back its room
                int n = want.size();
                if (n * 4 > set.length * 3 || (set.length > 4 && n * 8 < set.length)) {
                    assertThat(set.length).as("%s: db %d slot %d: %d keys in a set of %d", step, db.id(), slot, n, set.length).isNegative();
                }
                setSlots += set.length;
                setCount++;
            }
        } else {
            assertThat(expected).as(step).isEmpty();
        }
        for (Map.Entry<Integer, Set<Object>> w : expected.entrySet()) {
            int slot = w.getKey();
            TreeSet<String> keys = new TreeSet<>();
            for (Object e : w.getValue()) keys.add(s(Entries.key(e)));
            List<byte[]> got = db.keysInSlot(slot, Integer.MAX_VALUE);
            TreeSet<String> gotKeys = new TreeSet<>();
            for (byte[] b : got) gotKeys.add(s(b));
            assertThat(gotKeys).as("%s: db %d slot %d keys", step, db.id(), slot).isEqualTo(keys);
            assertThat(got).hasSize(keys.size());
            List<byte[]> one = db.keysInSlot(slot, 1);
            assertThat(one).hasSize(1);
            assertThat(keys).contains(s(one.get(0)));
            assertThat(db.keysInSlot(slot, 0)).isEmpty();
        }
        // what used_memory counts for the index follows its arrays
        long indexBytes = sets == null ? 0 : 2 * (16 + KeySlot.SLOTS * 4L) + setCount * 16L + setSlots * 4;
        Field f = Db.class.getDeclaredField("keysBySlot");
        f.setAccessible(true);
        assertThat(((SlotIndex) f.get(db)).memoryUsage()).as(step).isEqualTo(indexBytes);
    }

    private void verifyAll(String step) throws ReflectiveOperationException {
        for (int i = 0; i < DBS; i++) verify(ks.db(i), step);
    }

    // ---- tests --------------------------------------------------------------------------------

    @Test
    void offByDefault() throws ReflectiveOperationException {
        Db db = ks.db(0);
        long empty = db.memoryUsage();
        for (byte[] key : KEYS) db.put(key, string(key, "v", -1));
        db.remove(KEYS.get(0));
        for (int i = 0; i < DBS; i++) assertThat(ks.db(i).slotIndexed()).isFalse();
        Field f = Db.class.getDeclaredField("keysBySlot");
        f.setAccessible(true);
        assertThat(f.get(db)).isNull();
        assertThat(ks.slotIndexed()).isFalse();
        for (Db d : ks.detachedDbs()) assertThat(d.slotIndexed()).isFalse();
        assertThatThrownBy(() -> db.countKeysInSlot(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> db.keysInSlot(0, 10)).isInstanceOf(IllegalStateException.class);
        db.clear();
        assertThat(db.memoryUsage()).isEqualTo(empty);
    }

    @Test
    void enablingIndexesTheKeysPresentAndEveryDatabaseMadeLater() throws ReflectiveOperationException {
        for (byte[] key : KEYS) ks.db(1).put(key, string(key, "v", -1));
        ks.enableSlotIndex();
        verifyAll("enabled over keys present");
        assertThat(ks.db(1).countKeysInSlot(KeySlot.slot(k("tag")))).isEqualTo(40);
        Db[] detached = ks.detachedDbs();
        for (Db d : detached) assertThat(d.slotIndexed()).isTrue();
        for (byte[] key : KEYS) detached[2].putComplete(key.clone(), string(key, "loaded", -1));
        verify(detached[2], "loaded into a detached db");
        ks.swapWithDetached(detached);
        verifyAll("swapped in");
        for (Db d : detached) verify(d, "swapped out");
        assertThat(ks.db(2).countKeysInSlot(KeySlot.slot(k("tag")))).isEqualTo(40);
        assertThat(ks.db(1).size()).isZero();
        assertThat(detached[1].countKeysInSlot(KeySlot.slot(k("tag")))).isEqualTo(40);
        ks.discardDetached(detached);
        for (Db d : detached) verify(d, "discarded");
    }

    @Test
    void enablingReachesASwapdbLoadUnderWay() throws ReflectiveOperationException {
        Db[] detached = ks.detachedDbs();
        for (byte[] key : KEYS) detached[0].putComplete(key.clone(), string(key, "loading", -1));
        ks.enableSlotIndex();
        verify(detached[0], "detached before enabling");
        assertThat(detached[0].countKeysInSlot(KeySlot.slot(k("tag")))).isEqualTo(40);
    }

    @Test
    void randomOperationsKeepTheIndexExact() throws ReflectiveOperationException {
        ks.enableSlotIndex();
        for (long seed = 1; seed <= 2; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int step = 0; step < 1500; step++) {
                String what = randomStep(rnd);
                verifyAll("seed " + seed + " step " + step + " (" + what + ")");
            }
            if (ks.undoLog != null) {
                ks.undoChanges();
                verifyAll("seed " + seed + " undone at the end");
            }
            for (int i = 0; i < DBS; i++) ks.db(i).clear();
        }
    }

    private boolean bigValues() {
        return NativeMemory.available();
    }

    /** One random change through one of the paths that add or remove keys; says which. */
    private String randomStep(SplittableRandom rnd) throws ReflectiveOperationException {
        Db db = ks.db(rnd.nextInt(DBS));
        byte[] key = KEYS.get(rnd.nextInt(KEYS.size()));
        Object e = db.find(key);
        int op = rnd.nextInt(100);
        if (op < 20) {
            // SET: a new key, or an overwrite with a new array (the replaced entry leaves)
            db.put(key.clone(), string(key, "v" + rnd.nextInt(1000), rnd.nextInt(4) == 0 ? now + 1_000_000 : -1));
            return "put string";
        } else if (op < 27) {
            db.put(key, set(key.clone(), -1));
            return "put object";
        } else if (op < 40) {
            db.remove(key);
            return "remove";
        } else if (op < 50) {
            if (e == null) return "no key to expire";
            db.setExpire(key, 0, key.length, e, rnd.nextBoolean() ? now + 1_000_000 : -1);
            return "expire set or cleared";
        } else if (op < 56) {
            // a TTL that passes, then a read deletes the key
            if (e == null) return "no key to expire lazily";
            db.setExpire(key, 0, key.length, e, now + 5);
            now += 10;
            ks.updateTime();
            assertThat(db.lookupRead(key, 0, key.length)).isNull();
            return "lazy expiry";
        } else if (op < 60) {
            for (int i = 0; i < 5; i++) {
                byte[] kk = KEYS.get(rnd.nextInt(KEYS.size()));
                Object x = db.find(kk);
                if (x != null) db.setExpire(kk, 0, kk.length, x, now + 5);
            }
            now += 10;
            ks.activeExpireCycle(1_000_000_000L);
            return "active expiry";
        } else if (op < 66) {
            // RENAME: out of the table, stored again under another key
            if (e == null) return "no key to rename";
            byte[] to = KEYS.get(rnd.nextInt(KEYS.size()));
            db.remove(key);
            db.remove(to);
            Object moved = e instanceof byte[] ? StringEntry.withKey((byte[]) e, to, 0, to.length)
                    : ((DbObject) e).asEntry(to.clone(), Entries.expire(e), Entries.lru(e));
            db.put(to, moved);
            return "rename";
        } else if (op < 70) {
            // MOVE: the same entry into another database
            if (e == null) return "no key to move";
            Db other = ks.db((db.id() + 1) % DBS);
            if (other.find(key) != null) return "move target exists";
            db.remove(key);
            other.put(key, e);
            return "move";
        } else if (op < 76) {
            if (!bigValues()) return "no native memory";
            byte[] v = new byte[100];
            db.putComplete(key.clone(), StringEntry.copyToBig(key, 0, key.length, v, 0, v.length, -1, 0));
            // a read that indexes the value moves it to the heap: a new array replaces it
            if (rnd.nextBoolean()) db.lookupRead(key, 0, key.length);
            else db.lookupWrite(key, 0, key.length);
            return "big string moved to the heap";
        } else if (op < 82) {
            db.putComplete(key.clone(), string(key, "loaded", rnd.nextBoolean() ? now + 1_000_000 : -1));
            return "loaded";
        } else if (op < 85) {
            db.clear();
            return "flushdb";
        } else if (op < 89) {
            int a = rnd.nextInt(DBS), b = rnd.nextInt(DBS);
            ks.swap(a, b);
            return "swapdb " + a + " " + b;
        } else if (op < 93) {
            if (ks.undoLog == null) {
                ks.recordChanges();
                return "debugging session starts";
            }
            ks.undoChanges();
            return "debugging session undone";
        } else if (op < 96) {
            if (ks.undoLog != null) return "no swapdb load in a debugging session";
            Db[] detached = ks.detachedDbs();
            for (int i = 0; i < 20; i++) {
                byte[] kk = KEYS.get(rnd.nextInt(KEYS.size()));
                detached[rnd.nextInt(DBS)].putComplete(kk.clone(), string(kk, "from the master", -1));
            }
            for (Db d : detached) verify(d, "detached filled");
            if (rnd.nextBoolean()) {
                ks.swapWithDetached(detached);
                verifyAll("swapped with detached");
                for (Db d : detached) verify(d, "old data set detached");
            }
            ks.discardDetached(detached);
            for (Db d : detached) verify(d, "detached discarded");
            return "swapdb load";
        } else {
            // an INCR-like change in place keeps the array: nothing for the index to hear
            Object w = db.lookupWrite(key, 0, key.length);
            return w == null ? "lookup of a missing key" : "lookup for a write";
        }
    }

    @Test
    void aSlotsKeysAreDeletedThroughTheIndex() throws ReflectiveOperationException {
        ks.enableSlotIndex();
        Db db = ks.db(0);
        for (byte[] key : KEYS) db.put(key, string(key, "v", -1));
        int slot = KeySlot.slot(k("tag"));
        // as a node that loses the slot deletes its keys, a batch at a time
        List<byte[]> batch;
        while (!(batch = db.keysInSlot(slot, 7)).isEmpty()) {
            assertThat(batch.size()).isLessThanOrEqualTo(7);
            for (byte[] key : batch) assertThat(db.remove(key)).isNotNull();
            verify(db, "a batch of the slot deleted");
        }
        assertThat(db.countKeysInSlot(slot)).isZero();
        assertThat(db.size()).isEqualTo(KEYS.size() - 40);
        verify(db, "slot deleted");
        assertThat(sets(db)[slot]).isNull();
    }

    /**
     * What the index costs per key when a node holds many: printed, and held under Redis's 16
     * bytes (two pointers in each key's dict entry).
     */
    @Test
    void memoryPerKey() throws ReflectiveOperationException {
        ks.enableSlotIndex();
        Db db = ks.db(0);
        Field f = Db.class.getDeclaredField("keysBySlot");
        f.setAccessible(true);
        int n = 1 << 20;
        for (int i = 0; i < n; i++) {
            byte[] key = k("key:" + i);
            db.put(key, string(key, "v", -1));
        }
        long bytes = ((SlotIndex) f.get(db)).memoryUsage();
        double perKey = (double) bytes / n;
        System.out.printf("slot index: %d keys, %d bytes, %.2f bytes a key%n", n, bytes, perKey);
        assertThat(perKey).isLessThan(16);
        // used_memory counts it: the same keys without the index take that much less
        Keyspace plain = new Keyspace(1, Keyspace.Listener.NONE);
        for (int i = 0; i < n; i++) {
            byte[] key = k("key:" + i);
            plain.db(0).put(key, string(key, "v", -1));
        }
        ks.settle();
        plain.settle();
        assertThat(db.memoryUsage() - plain.db(0).memoryUsage()).isEqualTo(bytes);
        for (int i = 0; i < n; i++) db.remove(k("key:" + i));
        // every slot's set went with its last key
        assertThat(((SlotIndex) f.get(db)).memoryUsage()).isEqualTo(2 * (16 + KeySlot.SLOTS * 4L));
    }
}
