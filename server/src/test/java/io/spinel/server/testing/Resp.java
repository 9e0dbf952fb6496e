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

    /** Same aggregate header and the same elements in any order (or byte-equal for non-aggregates). */
    public static boolean sameUnordered(byte[] a, byte[] b) {
        List<byte[]> ea = elements(a), eb = elements(b);
        if (ea == null || eb == null) return Arrays.equals(a, b);
        if (a[0] != b[0] || ea.size() != eb.size()) return false;
        List<String> sa = new ArrayList<>(), sb = new ArrayList<>();
        if (a[0] == '%') {
            for (int i = 0; i < ea.size(); i += 2) {
                sa.add(new String(ea.get(i), StandardCharsets.ISO_8859_1) + "=>" + new String(ea.get(i + 1), StandardCharsets.ISO_8859_1));
                sb.add(new String(eb.get(i), StandardCharsets.ISO_8859_1) + "=>" + new String(eb.get(i + 1), StandardCharsets.ISO_8859_1));
            }
        } else {
            for (byte[] x : ea) sa.add(new String(x, StandardCharsets.ISO_8859_1));
            for (byte[] x : eb) sb.add(new String(x, StandardCharsets.ISO_8859_1));
        }
        sa.sort(null);
        sb.sort(null);
        return sa.equals(sb);
    }
}
