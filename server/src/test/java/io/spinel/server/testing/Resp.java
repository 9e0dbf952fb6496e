package io.spinel.server.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Small RESP helpers for tests: splitting an aggregate reply into its elements. */
public final class Resp {
    private Resp() {
    }

    /** The raw bytes of each element of a top-level aggregate, or null if not an aggregate. */
    public static List<byte[]> elements(byte[] reply) {
        if (reply.length == 0) return null;
        char t = (char) reply[0];
        if (t != '*' && t != '~' && t != '%' && t != '>') return null;
        int[] pos = {0};
        int n = Integer.parseInt(line(reply, pos).substring(1));
        if (t == '%') n *= 2;
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int start = pos[0];
            skip(reply, pos);
            out.add(Arrays.copyOfRange(reply, start, pos[0]));
        }
        return out;
    }

    private static String line(byte[] b, int[] pos) {
        int start = pos[0];
        while (!(b[pos[0]] == '\r' && b[pos[0] + 1] == '\n')) pos[0]++;
        String s = new String(b, start, pos[0] - start, StandardCharsets.ISO_8859_1);
        pos[0] += 2;
        return s;
    }

    private static void skip(byte[] b, int[] pos) {
        String l = line(b, pos);
        char t = l.charAt(0);
        switch (t) {
            case '$': case '=': case '!': {
                int n = Integer.parseInt(l.substring(1));
                if (n >= 0) pos[0] += n + 2;
                return;
            }
            case '*': case '~': case '>': {
                int n = Integer.parseInt(l.substring(1));
                for (int i = 0; i < n; i++) skip(b, pos);
                return;
            }
            case '%': case '|': {
                int n = Integer.parseInt(l.substring(1));
                for (int i = 0; i < 2 * n; i++) skip(b, pos);
                return;
            }
            default:
                return;
        }
    }

    /**
     * Same value with every aggregate compared as a multiset (map pairs kept together), so nested
     * arrays in unspecified order (SCAN's keys, SMEMBERS in a map...) compare equal.
     */
    public static boolean sameUnordered(byte[] a, byte[] b) {
        return canonical(a).equals(canonical(b));
    }

    /** A canonical string of a reply with aggregate elements sorted. */
    static String canonical(byte[] reply) {
        List<byte[]> els = elements(reply);
        if (els == null) return new String(reply, StandardCharsets.ISO_8859_1);
        String header = line(reply, new int[] {0});
        List<String> parts = new ArrayList<>();
        if (reply[0] == '%') {
            for (int i = 0; i < els.size(); i += 2) parts.add(canonical(els.get(i)) + "=>" + canonical(els.get(i + 1)));
        } else {
            for (byte[] e : els) parts.add(canonical(e));
        }
        parts.sort(null);
        return header + parts;
    }

    /** Integer replies within {@code tolerance} of each other (TTLs measured a few ms apart). */
    public static boolean sameApprox(byte[] a, byte[] b, long tolerance) {
        if (a.length < 3 || b.length < 3 || a[0] != ':' || b[0] != ':') return java.util.Arrays.equals(a, b);
        long x = Long.parseLong(new String(a, 1, a.length - 3, StandardCharsets.ISO_8859_1));
        long y = Long.parseLong(new String(b, 1, b.length - 3, StandardCharsets.ISO_8859_1));
        return Math.abs(x - y) <= tolerance;
    }
}
