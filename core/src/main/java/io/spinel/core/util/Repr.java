package io.spinel.core.util;

import java.nio.charset.StandardCharsets;

/** Redis's sdscatrepr: a string in double quotes with C escapes, as configuration files hold values. */
public final class Repr {
    private Repr() {
    }

    /** The string's bytes (one char per byte, ISO-8859-1) quoted and escaped. */
    public static String quote(String s) {
        return quote(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    public static String quote(byte[] bytes) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte b : bytes) {
            int c = b & 0xff;
            switch (c) {
                case '\\': sb.append("\\\\"); break;
                case '"': sb.append("\\\""); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case 7: sb.append("\\a"); break;
                case '\b': sb.append("\\b"); break;
                default:
                    if (c >= 0x20 && c < 0x7f) sb.append((char) c);
                    else sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.append('"').toString();
    }
}
