package io.spinel.core;

/** Keyspace notification classes (notify-keyspace-events letters), Redis's NOTIFY_* bits. */
public final class Notify {
    private Notify() {
    }

    public static final int KEYSPACE = 1;      // K
    public static final int KEYEVENT = 1 << 1; // E
    public static final int GENERIC = 1 << 2;  // g
    public static final int STRING = 1 << 3;   // $
    public static final int LIST = 1 << 4;     // l
    public static final int SET = 1 << 5;      // s
    public static final int HASH = 1 << 6;     // h
    public static final int ZSET = 1 << 7;     // z
    public static final int EXPIRED = 1 << 8;  // x
    public static final int EVICTED = 1 << 9;  // e
    public static final int STREAM = 1 << 10; // t
    public static final int KEY_MISS = 1 << 11; // m
    public static final int LOADED = 1 << 12;  // module only
    public static final int MODULE = 1 << 13;  // d
    public static final int NEW = 1 << 14;     // n
    /** A: g$lshzxetd */
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    /** notify-keyspace-events letters to Notify bits; -1 for an invalid letter. */
    public static int parse(String s) {
        int flags = 0;
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case 'A': flags |= ALL; break;
                case 'g': flags |= GENERIC; break;
                case '$': flags |= STRING; break;
                case 'l': flags |= LIST; break;
                case 's': flags |= SET; break;
                case 'h': flags |= HASH; break;
                case 'z': flags |= ZSET; break;
                case 'x': flags |= EXPIRED; break;
                case 'e': flags |= EVICTED; break;
                case 'K': flags |= KEYSPACE; break;
                case 'E': flags |= KEYEVENT; break;
                case 't': flags |= STREAM; break;
                case 'm': flags |= KEY_MISS; break;
                case 'd': flags |= MODULE; break;
                case 'n': flags |= NEW; break;
                default: return -1;
            }
        }
        return flags;
    }

    /** Notify bits back to the canonical letters CONFIG GET shows. */
    /**
     * The flags in letters that keep every one of them: {@link #toLetters} as Redis prints them,
     * and 'n' after 'A', which Redis's printing drops though the flag stays on (CONFIG SET
     * notify-keyspace-events KEAn shows AKE and sends "new" events). The option holds this form;
     * CONFIG GET and CONFIG REWRITE show Redis's.
     */
    public static String toLosslessLetters(int flags) {
        String shown = toLetters(flags);
        return (flags & ALL) == ALL && (flags & NEW) != 0 ? "A" + "n" + shown.substring(1) : shown;
    }

    public static String toLetters(int flags) {
        StringBuilder sb = new StringBuilder();
        if ((flags & ALL) == ALL) {
            sb.append('A');
        } else {
            if ((flags & GENERIC) != 0) sb.append('g');
            if ((flags & STRING) != 0) sb.append('$');
            if ((flags & LIST) != 0) sb.append('l');
            if ((flags & SET) != 0) sb.append('s');
            if ((flags & HASH) != 0) sb.append('h');
            if ((flags & ZSET) != 0) sb.append('z');
            if ((flags & EXPIRED) != 0) sb.append('x');
            if ((flags & EVICTED) != 0) sb.append('e');
            if ((flags & STREAM) != 0) sb.append('t');
            if ((flags & MODULE) != 0) sb.append('d');
            if ((flags & NEW) != 0) sb.append('n');
        }
        if ((flags & KEYSPACE) != 0) sb.append('K');
        if ((flags & KEYEVENT) != 0) sb.append('E');
        if ((flags & KEY_MISS) != 0) sb.append('m');
        return sb.toString();
    }
}
