package io.spinel.core.cluster;

/**
 * IP address literals as Redis reads and prints them (inet_pton, then inet_ntop): IPv4 dotted
 * quads and IPv6 in its shortest form. Never a name lookup: CLUSTER MEET takes addresses only.
 */
final class Ips {
    private Ips() {
    }

    /** The canonical form of an IPv4 or IPv6 literal, or null when it is neither. */
    static String normalize(String ip) {
        if (ip.indexOf(':') >= 0) {
            byte[] b = parseIpv6(ip);
            return b == null ? null : formatIpv6(b);
        }
        int[] parts = parseIpv4(ip);
        if (parts == null) return null;
        return parts[0] + "." + parts[1] + "." + parts[2] + "." + parts[3];
    }

    /** inet_pton's IPv4: exactly four decimal parts of at most 255, no leading zeros beyond one digit. */
    private static int[] parseIpv4(String s) {
        String[] p = s.split("\\.", -1);
        if (p.length != 4) return null;
        int[] out = new int[4];
        for (int i = 0; i < 4; i++) {
            String x = p[i];
            if (x.isEmpty() || x.length() > 3 || (x.length() > 1 && x.charAt(0) == '0')) return null;
            for (int j = 0; j < x.length(); j++) if (!Character.isDigit(x.charAt(j))) return null;
            out[i] = Integer.parseInt(x);
            if (out[i] > 255) return null;
        }
        return out;
    }

    private static byte[] parseIpv6(String s) {
        if (s.indexOf('%') >= 0) return null;
        int dbl = s.indexOf("::");
        if (dbl >= 0 && s.indexOf("::", dbl + 1) >= 0) return null;
        String head = dbl >= 0 ? s.substring(0, dbl) : s;
        String tail = dbl >= 0 ? s.substring(dbl + 2) : "";
        java.util.List<Integer> hv = groups(head);
        java.util.List<Integer> tv = groups(tail);
        if (hv == null || tv == null) return null;
        int total = hv.size() + tv.size();
        if (dbl < 0 ? total != 8 : total > 7) return null;
        byte[] b = new byte[16];
        int i = 0;
        for (int g : hv) {
            b[i++] = (byte) (g >> 8);
            b[i++] = (byte) g;
        }
        i = 16 - tv.size() * 2;
        for (int g : tv) {
            b[i++] = (byte) (g >> 8);
            b[i++] = (byte) g;
        }
        return b;
    }

    /** Colon-separated hex groups; an IPv4 tail counts as two. Null when malformed. */
    private static java.util.List<Integer> groups(String s) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        if (s.isEmpty()) return out;
        String[] p = s.split(":", -1);
        for (int i = 0; i < p.length; i++) {
            String x = p[i];
            if (i == p.length - 1 && x.indexOf('.') >= 0) {
                int[] v4 = parseIpv4(x);
                if (v4 == null) return null;
                out.add((v4[0] << 8) | v4[1]);
                out.add((v4[2] << 8) | v4[3]);
                continue;
            }
            if (x.isEmpty() || x.length() > 4) return null;
            int v = 0;
            for (int j = 0; j < x.length(); j++) {
                int d = Character.digit(x.charAt(j), 16);
                if (d < 0) return null;
                v = v * 16 + d;
            }
            out.add(v);
        }
        return out;
    }

    /** inet_ntop's form: the longest run (two or more) of zero groups as "::", lower-case hex. */
    static String formatIpv6(byte[] b) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) bestStart = -1;
        // an IPv4-mapped or -compatible address keeps its dotted tail
        boolean v4Tail = bestStart == 0 && (bestLen == 6 || (bestLen == 5 && g[5] == 0xffff));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append(i == 0 ? "::" : ":");
                i += bestLen - 1;
                continue;
            }
            if (v4Tail && i == 6) {
                sb.append(b[12] & 0xff).append('.').append(b[13] & 0xff).append('.').append(b[14] & 0xff).append('.')
                        .append(b[15] & 0xff);
                break;
            }
            sb.append(Integer.toHexString(g[i]));
            if (i < 7) sb.append(':');
        }
        return sb.toString();
    }
}
