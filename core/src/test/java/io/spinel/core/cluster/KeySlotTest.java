package io.spinel.core.cluster;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * KeySlot against redis-server 7.0.15's CLUSTER KEYSLOT. The expected values were collected once
 * by hand from a redis-server 7.0.15 started with --cluster-enabled yes (redis-cli for the text
 * keys, a raw RESP request for the binary ones); the test does not need a redis-server.
 */
class KeySlotTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] ints(int... v) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (byte) v[i];
        return out;
    }

    @Test
    void textKeysMatchRedis() {
        Map<String, Integer> expected = new LinkedHashMap<>();
        expected.put("foo", 12182);
        expected.put("bar", 5061);
        expected.put("{user1000}.following", 3443);
        expected.put("{user1000}.followers", 3443);
        expected.put("foo{}{bar}", 8363);
        expected.put("foo{{bar}}zap", 4015);
        expected.put("foo{bar}{zap}", 5061);
        expected.put("", 0);
        expected.put("{", 4092);
        expected.put("}", 12090);
        expected.put("{}", 15257);
        expected.put("a{b", 13340);
        expected.put("a}b{c", 13587);
        expected.put("{a}", 15495);
        expected.put("}{a}", 15495);
        expected.put("{{}}", 4092);
        expected.put("{}a", 10875);
        expected.put("key:1", 6657);
        expected.put("123456789", 12739);
        expected.put("hello world", 15332);
        expected.put("user:{42}:name", 8000);
        expected.put("x{ab}", 13567);
        expected.put("{ab}y", 13567);
        for (Map.Entry<String, Integer> e : expected.entrySet()) {
            assertThat(KeySlot.slot(b(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    @Test
    void binaryAndLongKeysMatchRedis() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) all[i] = (byte) i;
        assertThat(KeySlot.slot(all)).isEqualTo(16155);
        assertThat(KeySlot.slot(ints(0x00, 0xff, '{', 0x80, 0x81, '}', 0x7f))).isEqualTo(6705);
        assertThat(KeySlot.slot(ints(0xff, 0xfe, 0xfd))).isEqualTo(287);
        assertThat(KeySlot.slot(ints('{', 0x00, '}'))).isEqualTo(0);
        byte[] k1000 = new byte[1000];
        Arrays.fill(k1000, (byte) 'k');
        assertThat(KeySlot.slot(k1000)).isEqualTo(15858);
        byte[] mixed = new byte[1000];
        for (int i = 0; i < 1000; i++) mixed[i] = (byte) (i * 37 + 11);
        assertThat(KeySlot.slot(mixed)).isEqualTo(8965);
        // a tag deep inside a long key: "a" x 500, "{tag}", "b" x 495
        byte[] tagged = new byte[1000];
        Arrays.fill(tagged, 0, 500, (byte) 'a');
        System.arraycopy(b("{tag}"), 0, tagged, 500, 5);
        Arrays.fill(tagged, 505, 1000, (byte) 'b');
        assertThat(KeySlot.slot(tagged)).isEqualTo(8338).isEqualTo(KeySlot.slot(b("tag")));
    }

    @Test
    void aSliceIsHashedAsTheSameBytesOnTheirOwn() {
        byte[] buf = b("xx{user1000}.following{yy");
        // "{user1000}.following" sits at 2..22; the '{' after it is outside the slice
        assertThat(KeySlot.slot(buf, 2, 20)).isEqualTo(3443);
        // "foo" inside a buffer whose bytes around it would form a tag
        byte[] around = b("{foo}");
        assertThat(KeySlot.slot(around, 1, 3)).isEqualTo(12182);
        assertThat(KeySlot.slot(around, 0, 4)).isEqualTo(KeySlot.slot(b("{foo")));
    }

    @Test
    void crc16IsXmodem() {
        // the standard check value of CRC-16/XMODEM
        assertThat(KeySlot.crc16(b("123456789"), 0, 9)).isEqualTo(0x31C3);
    }
}
