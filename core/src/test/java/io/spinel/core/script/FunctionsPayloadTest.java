package io.spinel.core.script;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FUNCTION DUMP payloads: byte-identical to Redis's (RDB string with LZF, version, CRC64 Jones). */
class FunctionsPayloadTest {
    private static final String LIB = "#!lua name=dumplib\nredis.register_function('dumped', function(keys, args) "
            + "return 'from dump' end)\nredis.register_function{function_name='dumped_ro', callback=function() "
            + "return redis.call('get', 'x') end, flags={'no-writes'}}";
    /** FUNCTION DUMP of LIB from redis-server 7.0.15. */
    private static final String REDIS_DUMP = "f5c340a940e01f23216c7561206e616d653d64756d706c69620a72656469732e72656769"
            + "7374650b725f66756e6374696f6e28274020046564272c20e00012186b6579732c2061726773292072657475726e20276672"
            + "6f6d20402a052720656e6429e00f4e007bc044005f607ca05c025f726f205f0863616c6c6261636b3dc0230028e0005e809c"
            + "4020042827676574202c032778272940692096126c6167733d7b276e6f2d777269746573277d7d0a00c3b9991b254dc3b6";

    @Test
    void dumpMatchesRedisByteForByte() throws Exception {
        byte[] lib = LIB.getBytes(StandardCharsets.ISO_8859_1);
        byte[] dump = FunctionsPayload.dump(List.of(lib), true);
        assertThat(HexFormat.of().formatHex(dump)).isEqualTo(REDIS_DUMP);
        byte[] redis = HexFormat.of().parseHex(REDIS_DUMP);
        assertThat(FunctionsPayload.verify(redis, false)).isTrue();
        assertThat(readAll(redis)).singleElement().isEqualTo(lib);
    }

    @Test
    void corruptedPayloadsAreRejected() {
        byte[] p = HexFormat.of().parseHex(REDIS_DUMP);
        p[20] ^= 1;
        assertThat(FunctionsPayload.verify(p, false)).isFalse();
        assertThat(FunctionsPayload.verify(p, true)).as("DEBUG SET-SKIP-CHECKSUM-VALIDATION 1").isTrue();
        byte[] newer = HexFormat.of().parseHex(REDIS_DUMP);
        newer[newer.length - 10] = 11;
        assertThat(FunctionsPayload.verify(newer, false)).isFalse();
        assertThat(FunctionsPayload.verify(newer, true)).as("the version is still checked").isFalse();
        assertThat(FunctionsPayload.verify(new byte[3], false)).isFalse();
        byte[] wrongType = FunctionsPayload.dump(List.of(), false);
        byte[] bad = new byte[wrongType.length + 1];
        bad[0] = 0;
        System.arraycopy(wrongType, 0, bad, 1, wrongType.length);
        assertThatThrownBy(() -> readAll(bad)).hasMessage("given type is not a function");
    }

    @Test
    void shortAndIntegerLikeCodesRoundTrip() throws Exception {
        for (String code : new String[] {"", "x", "12345", "-7", "#!lua name=a\nreturn 1"}) {
            byte[] c = code.getBytes(StandardCharsets.ISO_8859_1);
            byte[] d = FunctionsPayload.dump(List.of(c, c), true);
            assertThat(FunctionsPayload.verify(d, false)).isTrue();
            assertThat(readAll(d)).hasSize(2).allSatisfy(x -> assertThat(x).isEqualTo(c));
        }
    }

    private static List<byte[]> readAll(byte[] payload) throws FunctionsPayload.BadPayload {
        List<byte[]> codes = new java.util.ArrayList<>();
        FunctionsPayload.read(payload, codes::add);
        return codes;
    }
}
