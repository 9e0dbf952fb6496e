package io.spinel.core.util;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Unpredictable bytes for seeds and ids (the key hash seed, run_id), read from the kernel's
 * /dev/urandom as Redis reads them. {@link SecureRandom} gives the same where that device is
 * missing, but setting up its providers took some 20 ms of a server's first start in a fresh JVM.
 */
public final class Entropy {
    private Entropy() {
    }

    public static byte[] bytes(int n) {
        byte[] b = new byte[n];
        try (InputStream in = new FileInputStream("/dev/urandom")) {
            int off = 0;
            while (off < n) {
                int r = in.read(b, off, n - off);
                if (r < 0) throw new IOException("end of /dev/urandom");
                off += r;
            }
            return b;
        } catch (IOException | SecurityException e) {
            new SecureRandom().nextBytes(b);
            return b;
        }
    }

    public static long nextLong() {
        byte[] b = bytes(8);
        long v = 0;
        for (byte x : b) v = (v << 8) | (x & 0xff);
        return v;
    }

    /** n lower-case hexadecimal digits (Redis's getRandomHexChars). */
    public static String hex(int n) {
        byte[] b = bytes(n);
        char[] out = new char[n];
        for (int i = 0; i < n; i++) out[i] = Character.forDigit(b[i] & 0xf, 16);
        return new String(out);
    }
}
