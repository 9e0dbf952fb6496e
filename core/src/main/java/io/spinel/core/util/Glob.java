package io.spinel.core.util;

/**
 * Redis's glob-style matching (KEYS, SCAN MATCH, PSUBSCRIBE, CONFIG GET): {@code *}, {@code ?},
 * {@code [abc]}, {@code [^a-z]}, backslash escapes. Bytes compare as signed chars, as in C, and a
 * failed {@code *} stops trying longer matches for the earlier stars (the same pruning Redis uses,
 * which keeps patterns like {@code a*a*a*a*b} from going exponential).
 */
public final class Glob {
    private Glob() {
    }

    public static boolean match(byte[] p, byte[] s, boolean nocase) {
        return match(p, 0, p.length, s, 0, s.length, nocase);
    }

    public static boolean match(byte[] p, int pOff, int pLen, byte[] s, int sOff, int sLen, boolean nocase) {
        return matchImpl(p, pOff, pOff + pLen, s, sOff, sOff + sLen, nocase) == MATCH;
    }

    /** True when the pattern has no special characters, so a match is an exact lookup. */
    public static boolean isLiteral(byte[] p, int off, int len) {
        for (int i = off; i < off + len; i++) {
            byte c = p[i];
            if (c == '*' || c == '?' || c == '[' || c == '\\') return false;
        }
        return true;
    }

    private static int at(byte[] b, int i, int end) {
        return i < end ? b[i] : 0;
    }

    private static int lower(int c) {
        return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    }

    private static final int MATCH = 1, NO_MATCH = 0;
    /** A star ran out of subject: no earlier star can match by taking more either; all give up. */
    private static final int GIVE_UP = -1;

    private static int matchImpl(byte[] p, int pi, int pEnd, byte[] s, int si, int sEnd, boolean nocase) {
        while (pi < pEnd && si < sEnd) {
            switch (p[pi]) {
                case '*': {
                    while (pi + 1 < pEnd && p[pi + 1] == '*') pi++;
                    if (pi + 1 == pEnd) return MATCH;
                    while (si < sEnd) {
                        int rest = matchImpl(p, pi + 1, pEnd, s, si, sEnd, nocase);
                        if (rest != NO_MATCH) return rest;
                        si++;
                    }
                    return GIVE_UP;
                }
                case '?':
                    si++;
                    break;
                case '[': {
                    pi++;
                    boolean not = at(p, pi, pEnd) == '^';
                    if (not) pi++;
                    boolean match = false;
                    int c = s[si];
                    while (true) {
                        int pc = at(p, pi, pEnd);
                        if (pc == '\\' && pEnd - pi >= 2) {
                            pi++;
                            if (p[pi] == c) match = true;
                        } else if (pc == ']' && pi < pEnd) {
                            break;
                        } else if (pi >= pEnd) {
                            pi--;
                            break;
                        } else if (pEnd - pi >= 3 && p[pi + 1] == '-') {
                            int start = p[pi], end = p[pi + 2], cc = c;
                            if (start > end) {
                                int t = start;
                                start = end;
                                end = t;
                            }
                            if (nocase) {
                                start = lower(start);
                                end = lower(end);
                                cc = lower(cc);
                            }
                            pi += 2;
                            if (cc >= start && cc <= end) match = true;
                        } else if (nocase ? lower(pc) == lower(c) : pc == c) {
                            match = true;
                        }
                        pi++;
                    }
                    if (not) match = !match;
                    if (!match) return NO_MATCH;
                    si++;
                    break;
                }
                case '\\':
                    if (pEnd - pi >= 2) pi++;
                    // fall through
                default: {
                    int pc = p[pi], c = s[si];
                    if (nocase ? lower(pc) != lower(c) : pc != c) return NO_MATCH;
                    si++;
                    break;
                }
            }
            pi++;
            if (si == sEnd) {
                while (pi < pEnd && p[pi] == '*') pi++;
                break;
            }
        }
        return pi == pEnd && si == sEnd ? MATCH : NO_MATCH;
    }
}
