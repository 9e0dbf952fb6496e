package io.spinel.core.script.lua;

/**
 * Lua 5.1 pattern matching (lstrlib.c's matcher) over bytes, with the C locale's character
 * classes. As in C, the pattern ends at its first NUL byte.
 */
final class LuaPattern {
    static final int MAXCAPTURES = 32;
    private static final int CAP_UNFINISHED = -1;
    private static final int CAP_POSITION = -2;
    static final String SPECIALS = "^$*+?.([%-";

    final Interp L;
    final Coroutine th;
    final byte[] src;
    final int srcEnd;
    final byte[] pat;
    final int patEnd;
    int level;
    final int[] capInit = new int[MAXCAPTURES];
    final int[] capLen = new int[MAXCAPTURES];

    LuaPattern(Interp L, Coroutine th, byte[] src, byte[] pat) {
        this.L = L;
        this.th = th;
        this.src = src;
        this.srcEnd = src.length;
        this.pat = pat;
        int e = 0;
        while (e < pat.length && pat[e] != 0) e++;
        this.patEnd = e;
    }

    private int p(int i) {
        return i < patEnd ? pat[i] & 0xFF : 0;
    }

    private LuaError err(String msg) {
        return L.error(th, msg);
    }

    private int checkCapture(int l) {
        l -= '1';
        if (l < 0 || l >= level || capLen[l] == CAP_UNFINISHED) throw err("invalid capture index");
        return l;
    }

    private int captureToClose() {
        int lv = level;
        for (lv--; lv >= 0; lv--) if (capLen[lv] == CAP_UNFINISHED) return lv;
        throw err("invalid pattern capture");
    }

    private int classEnd(int pi) {
        int c = p(pi++);
        if (c == '%') {
            if (p(pi) == 0) throw err("malformed pattern (ends with '%')");
            return pi + 1;
        }
        if (c == '[') {
            if (p(pi) == '^') pi++;
            do {
                if (p(pi) == 0) throw err("malformed pattern (missing ']')");
                int cc = p(pi++);
                if (cc == '%' && p(pi) != 0) pi++;
            } while (p(pi) != ']');
            return pi + 1;
        }
        return pi;
    }

    static boolean isalpha(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    static boolean isdigit(int c) {
        return c >= '0' && c <= '9';
    }

    static boolean islower(int c) {
        return c >= 'a' && c <= 'z';
    }

    static boolean isupper(int c) {
        return c >= 'A' && c <= 'Z';
    }

    static boolean isspace(int c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    static boolean iscntrl(int c) {
        return c < 32 || c == 127;
    }

    static boolean ispunct(int c) {
        return c > 32 && c < 127 && !isalpha(c) && !isdigit(c);
    }

    static boolean isxdigit(int c) {
        return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    static int tolower(int c) {
        return isupper(c) ? c + 32 : c;
    }

    static int toupper(int c) {
        return islower(c) ? c - 32 : c;
    }

    private static boolean matchClass(int c, int cl) {
        boolean res;
        switch (tolower(cl)) {
            case 'a': res = isalpha(c); break;
            case 'c': res = iscntrl(c); break;
            case 'd': res = isdigit(c); break;
            case 'l': res = islower(c); break;
            case 'p': res = ispunct(c); break;
            case 's': res = isspace(c); break;
            case 'u': res = isupper(c); break;
            case 'w': res = isalpha(c) || isdigit(c); break;
            case 'x': res = isxdigit(c); break;
            case 'z': res = c == 0; break;
            default: return cl == c;
        }
        return islower(cl) ? res : !res;
    }

    /** [set] starting at p (the '['), ec is the index of the closing ']'. */
    private boolean matchBracketClass(int c, int pi, int ec) {
        boolean sig = true;
        if (p(pi + 1) == '^') {
            sig = false;
            pi++;
        }
        while (++pi < ec) {
            if (p(pi) == '%') {
                pi++;
                if (matchClass(c, p(pi))) return sig;
            } else if (p(pi + 1) == '-' && pi + 2 < ec) {
                pi += 2;
                if (p(pi - 2) <= c && c <= p(pi)) return sig;
            } else if (p(pi) == c) {
                return sig;
            }
        }
        return !sig;
    }

    private boolean singleMatch(int c, int pi, int ep) {
        switch (p(pi)) {
            case '.': return true;
            case '%': return matchClass(c, p(pi + 1));
            case '[': return matchBracketClass(c, pi, ep - 1);
            default: return p(pi) == c;
        }
    }

    private int matchBalance(int s, int pi) {
        if (p(pi) == 0 || p(pi + 1) == 0) throw err("unbalanced pattern");
        if (s >= srcEnd || (src[s] & 0xFF) != p(pi)) return -1;
        int b = p(pi);
        int e = p(pi + 1);
        int cont = 1;
        while (++s < srcEnd) {
            int c = src[s] & 0xFF;
            if (c == e) {
                if (--cont == 0) return s + 1;
            } else if (c == b) {
                cont++;
            }
        }
        return -1;
    }

    private int maxExpand(int s, int pi, int ep) {
        int i = 0;
        while (s + i < srcEnd && singleMatch(src[s + i] & 0xFF, pi, ep)) i++;
        while (i >= 0) {
            int res = match(s + i, ep + 1);
            if (res >= 0) return res;
            i--;
        }
        return -1;
    }

    private int minExpand(int s, int pi, int ep) {
        for (;;) {
            int res = match(s, ep + 1);
            if (res >= 0) return res;
            if (s < srcEnd && singleMatch(src[s] & 0xFF, pi, ep)) s++;
            else return -1;
        }
    }

    private int startCapture(int s, int pi, int what) {
        int lv = level;
        if (lv >= MAXCAPTURES) throw err("too many captures");
        capInit[lv] = s;
        capLen[lv] = what;
        level = lv + 1;
        int res = match(s, pi);
        if (res < 0) level--;
        return res;
    }

    private int endCapture(int s, int pi) {
        int l = captureToClose();
        capLen[l] = s - capInit[l];
        int res = match(s, pi);
        if (res < 0) capLen[l] = CAP_UNFINISHED;
        return res;
    }

    private int matchCapture(int s, int l) {
        l = checkCapture(l);
        int len = capLen[l];
        if (srcEnd - s >= len) {
            for (int i = 0; i < len; i++) if (src[capInit[l] + i] != src[s + i]) return -1;
            return s + len;
        }
        return -1;
    }

    /** Matches pattern from pi at source position s; returns the end of the match or -1. */
    int match(int s, int pi) {
        for (;;) {
            switch (p(pi)) {
                case '(':
                    if (p(pi + 1) == ')') return startCapture(s, pi + 2, CAP_POSITION);
                    return startCapture(s, pi + 1, CAP_UNFINISHED);
                case ')':
                    return endCapture(s, pi + 1);
                case '%': {
                    int n = p(pi + 1);
                    if (n == 'b') {
                        s = matchBalance(s, pi + 2);
                        if (s < 0) return -1;
                        pi += 4;
                        continue;
                    } else if (n == 'f') {
                        pi += 2;
                        if (p(pi) != '[') throw err("missing '[' after '%f' in pattern");
                        int ep = classEnd(pi);
                        int previous = s == 0 ? 0 : src[s - 1] & 0xFF;
                        int cur = s < srcEnd ? src[s] & 0xFF : 0;
                        if (matchBracketClass(previous, pi, ep - 1) || !matchBracketClass(cur, pi, ep - 1)) return -1;
                        pi = ep;
                        continue;
                    } else if (isdigit(n)) {
                        s = matchCapture(s, n);
                        if (s < 0) return -1;
                        pi += 2;
                        continue;
                    }
                    break;
                }
                case 0:
                    return s;
                case '$':
                    if (p(pi + 1) == 0) return s == srcEnd ? s : -1;
                    break;
                default:
                    break;
            }
            int ep = classEnd(pi);
            boolean m = s < srcEnd && singleMatch(src[s] & 0xFF, pi, ep);
            switch (p(ep)) {
                case '?': {
                    if (m) {
                        int res = match(s + 1, ep + 1);
                        if (res >= 0) return res;
                    }
                    pi = ep + 1;
                    continue;
                }
                case '*':
                    return maxExpand(s, pi, ep);
                case '+':
                    return m ? maxExpand(s + 1, pi, ep) : -1;
                case '-':
                    return minExpand(s, pi, ep);
                default:
                    if (!m) return -1;
                    s++;
                    pi = ep;
            }
        }
    }

    /** The value of capture i (the whole match s..e when there are no captures and i == 0). */
    Object capture(int i, int s, int e) {
        if (i >= level) {
            if (i == 0) return LuaString.copyOf(src, s, e - s);
            throw err("invalid capture index");
        }
        int l = capLen[i];
        if (l == CAP_UNFINISHED) throw err("unfinished capture");
        if (l == CAP_POSITION) return LuaValues.num(capInit[i] + 1);
        return LuaString.copyOf(src, capInit[i], l);
    }

    /** Number of values push_captures would push. */
    int captureCount(boolean wholeIfNone) {
        return (level == 0 && wholeIfNone) ? 1 : level;
    }
}
