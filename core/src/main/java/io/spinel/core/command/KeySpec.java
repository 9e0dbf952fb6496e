package io.spinel.core.command;

import io.spinel.core.protocol.Args;

import java.util.List;

/**
 * One key specification of a command (Redis 7's key_specs): where the search for keys begins and
 * how keys are found from there. COMMAND INFO reports them; COMMAND GETKEYS, WATCH-like features
 * and ACL key patterns use {@link #collect}.
 */
public final class KeySpec {
    public enum Begin { INDEX, KEYWORD, UNKNOWN }

    public enum Find { RANGE, KEYNUM, UNKNOWN }

    final List<String> flags;
    final Begin begin;
    final int index;          // INDEX: argument position
    final String keyword;     // KEYWORD: the token
    final int startFrom;      // KEYWORD: where to start looking (negative: from the end, backwards)
    final Find find;
    final int lastKey;        // RANGE: relative last key (-1 = last argument)
    final int keyStep;        // RANGE / KEYNUM
    final int limit;          // RANGE
    final int keyNumIdx;      // KEYNUM: relative index of the count
    final int firstKey;       // KEYNUM: relative index of the first key

    KeySpec(List<String> flags, Begin begin, int index, String keyword, int startFrom,
            Find find, int lastKey, int keyStep, int limit, int keyNumIdx, int firstKey) {
        this.flags = flags;
        this.begin = begin;
        this.index = index;
        this.keyword = keyword;
        this.startFrom = startFrom;
        this.find = find;
        this.lastKey = lastKey;
        this.keyStep = keyStep;
        this.limit = limit;
        this.keyNumIdx = keyNumIdx;
        this.firstKey = firstKey;
    }

    /** Whether the spec marks arguments that are not keys (NOT_KEY): ACL key checks skip them. */
    public boolean notKey() {
        return flags.contains("not_key");
    }

    /** Parses "FLAG,FLAG|i1|r0:1:0" (see {@link CommandRows}). */
    static KeySpec parse(String s) {
        String[] p = s.split("\\|");
        List<String> flags = p[0].isEmpty() ? List.of() : List.of(p[0].split(","));
        Begin begin = Begin.UNKNOWN;
        int index = 0, startFrom = 0;
        String keyword = null;
        if (p[1].startsWith("i")) {
            begin = Begin.INDEX;
            index = Integer.parseInt(p[1].substring(1));
        } else if (p[1].startsWith("k")) {
            begin = Begin.KEYWORD;
            int colon = p[1].lastIndexOf(':');
            keyword = p[1].substring(1, colon);
            startFrom = Integer.parseInt(p[1].substring(colon + 1));
        }
        Find find = Find.UNKNOWN;
        int lastKey = 0, keyStep = 0, limit = 0, keyNumIdx = 0, firstKey = 0;
        if (p[2].startsWith("r")) {
            find = Find.RANGE;
            String[] r = p[2].substring(1).split(":");
            lastKey = Integer.parseInt(r[0]);
            keyStep = Integer.parseInt(r[1]);
            limit = Integer.parseInt(r[2]);
        } else if (p[2].startsWith("n")) {
            find = Find.KEYNUM;
            String[] r = p[2].substring(1).split(":");
            keyNumIdx = Integer.parseInt(r[0]);
            firstKey = Integer.parseInt(r[1]);
            keyStep = Integer.parseInt(r[2]);
        }
        return new KeySpec(flags, begin, index, keyword, startFrom, find, lastKey, keyStep, limit, keyNumIdx, firstKey);
    }

    /**
     * Adds the positions of the keys this spec finds in args to out (Redis's getKeysUsingKeySpecs).
     * Returns false when the arguments do not fit the spec (a bad key count, an incomplete spec),
     * which makes the whole key extraction invalid.
     */
    boolean collect(Args args, IntList out) {
        int argc = args.count();
        if (flags.contains("not_key")) return true;
        int first = 0;
        if (begin == Begin.INDEX) {
            first = index;
        } else if (begin == Begin.KEYWORD) {
            int startIdx = startFrom > 0 ? startFrom : argc + startFrom;
            int endIdx = startFrom > 0 ? argc - 1 : 1;
            String token = keyword.toLowerCase();
            for (int i = startIdx; i != endIdx; i = startIdx <= endIdx ? i + 1 : i - 1) {
                if (i >= argc || i < 1) break;
                if (args.is(i, token)) {
                    first = i + 1;
                    break;
                }
            }
            if (first == 0) return true;
        } else {
            return false;
        }
        int last;
        int step;
        if (find == Find.RANGE) {
            step = keyStep;
            if (lastKey >= 0) last = first + lastKey;
            else if (limit == 0) last = argc + lastKey;
            else last = first + ((argc - first) / limit + lastKey);
        } else if (find == Find.KEYNUM) {
            step = keyStep;
            if (keyNumIdx >= argc || first + keyNumIdx >= argc) return false;
            int countIdx = first + keyNumIdx;
            long n;
            try {
                n = io.spinel.core.util.Bytes.parseLong(args.buf(countIdx), args.off(countIdx), args.len(countIdx));
            } catch (NumberFormatException e) {
                return false;
            }
            if (n < 0) return false;
            first += firstKey;
            last = first + (int) n - 1;
        } else {
            return false;
        }
        if (last >= argc || last < first || first >= argc) return false;
        for (int i = first; i <= last; i += step) {
            if (i >= argc || i < first) continue;
            out.add(i);
        }
        return !flags.contains("incomplete");
    }
}
