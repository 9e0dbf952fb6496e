package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;

/** Lua 5.1's lexical analyzer, with its error messages ("unfinished string near ..."). */
final class Lexer {
    static final int FIRST_RESERVED = 257;
    static final int TK_AND = 257, TK_BREAK = 258, TK_DO = 259, TK_ELSE = 260, TK_ELSEIF = 261,
            TK_END = 262, TK_FALSE = 263, TK_FOR = 264, TK_FUNCTION = 265, TK_IF = 266, TK_IN = 267,
            TK_LOCAL = 268, TK_NIL = 269, TK_NOT = 270, TK_OR = 271, TK_REPEAT = 272, TK_RETURN = 273,
            TK_THEN = 274, TK_TRUE = 275, TK_UNTIL = 276, TK_WHILE = 277, TK_CONCAT = 278, TK_DOTS = 279,
            TK_EQ = 280, TK_GE = 281, TK_LE = 282, TK_NE = 283, TK_NUMBER = 284, TK_NAME = 285,
            TK_STRING = 286, TK_EOS = 287;
    private static final int NUM_RESERVED = TK_WHILE - FIRST_RESERVED + 1;
    private static final String[] TOKENS = {
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local",
        "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", "..", "...", "==", ">=",
        "<=", "~=", "<number>", "<name>", "<string>", "<eof>",
    };
    private static final int EOZ = -1;

    /** The current token and its semantic value. */
    static final class Token {
        int token;
        double number;
        LuaString string;

        void copyFrom(Token o) {
            token = o.token;
            number = o.number;
            string = o.string;
        }
    }

    private final byte[] src;
    private int pos;
    private int current;
    int linenumber = 1;
    int lastline = 1;
    final Token t = new Token();
    final Token lookahead = new Token();
    final LuaString source;
    private final ByteArrayOutputStream buff = new ByteArrayOutputStream();
    /** Nesting of syntax levels (Lua's nCcalls during parsing). */
    int nCcalls;

    Lexer(byte[] src, LuaString source) {
        this.src = src;
        this.source = source;
        lookahead.token = TK_EOS;
        next();
    }

    private void next() {
        current = pos < src.length ? (src[pos++] & 0xFF) : EOZ;
    }

    private boolean currIsNewline() {
        return current == '\n' || current == '\r';
    }

    private void save(int c) {
        buff.write(c);
    }

    private void saveAndNext() {
        save(current);
        next();
    }

    static String token2str(int token) {
        if (token < FIRST_RESERVED) {
            if (token < 32 || token == 127) return "char(" + token + ")";
            return String.valueOf((char) token);
        }
        return TOKENS[token - FIRST_RESERVED];
    }

    private String txtToken(int token) {
        switch (token) {
            case TK_NAME:
            case TK_STRING:
            case TK_NUMBER: {
                byte[] b = buff.toByteArray();
                int n = 0;
                while (n < b.length && b[n] != 0) n++;
                return new String(b, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            default:
                return token2str(token);
        }
    }

    LuaError lexError(String msg, int token) {
        String m = chunkId(source) + ":" + linenumber + ": " + msg;
        if (token != 0) m = m + " near '" + txtToken(token) + "'";
        return new LuaError(LuaString.valueOf(m));
    }

    LuaError syntaxError(String msg) {
        return lexError(msg, t.token);
    }

    /** Lua's luaO_chunkid with LUA_IDSIZE 60. */
    static String chunkId(LuaString source) {
        String s = source.toString();
        int bufflen = 60;
        if (s.startsWith("=")) {
            String r = s.substring(1);
            return r.length() > bufflen - 1 ? r.substring(0, bufflen - 1) : r;
        }
        if (s.startsWith("@")) {
            s = s.substring(1);
            int room = bufflen - 8; // sizeof(" '...' ")
            if (s.length() > room) return "..." + s.substring(s.length() - room);
            return s;
        }
        int len = 0;
        while (len < s.length() && s.charAt(len) != '\n' && s.charAt(len) != '\r') len++;
        int room = bufflen - 17; // sizeof(" [string \"...\"] ")
        if (len > room) len = room;
        if (len < s.length()) return "[string \"" + s.substring(0, len) + "...\"]";
        return "[string \"" + s + "\"]";
    }

    private void incLineNumber() {
        int old = current;
        next();
        if (currIsNewline() && current != old) next();
        ++linenumber;
    }

    /**
     * Lua's check_next, whose strchr(set, c) also finds a NUL byte (the set's own terminator):
     * "a.\0" lexes as "a" "..", "1\0" as a numeral with an exponent mark.
     */
    private boolean checkNext(String set) {
        if (current == EOZ || current != 0 && set.indexOf(current) < 0) return false;
        saveAndNext();
        return true;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isAlpha(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isAlnum(int c) {
        return isAlpha(c) || isDigit(c);
    }

    private static boolean isSpace(int c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    private void readNumeral(Token tk) {
        do {
            saveAndNext();
        } while (isDigit(current) || current == '.');
        if (checkNext("Ee")) checkNext("+-");
        while (isAlnum(current) || current == '_') saveAndNext();
        Double d = Num.str2d(LuaString.wrap(buff.toByteArray()));
        if (d == null) throw lexError("malformed number", TK_NUMBER);
        tk.number = d;
    }

    private int skipSep() {
        int count = 0;
        int s = current;
        saveAndNext();
        while (current == '=') {
            saveAndNext();
            count++;
        }
        return current == s ? count : (-count) - 1;
    }

    private void readLongString(Token tk, int sep) {
        int cont = 0;
        saveAndNext();
        if (currIsNewline()) incLineNumber();
        for (;;) {
            switch (current) {
                case EOZ:
                    throw lexError(tk != null ? "unfinished long string" : "unfinished long comment", TK_EOS);
                case '[':
                    if (skipSep() == sep) {
                        saveAndNext();
                        cont++;
                        if (sep == 0) throw lexError("nesting of [[...]] is deprecated", '[');
                    }
                    break;
                case ']':
                    if (skipSep() == sep) {
                        saveAndNext();
                        if (tk != null) {
                            byte[] b = buff.toByteArray();
                            tk.string = LuaString.copyOf(b, 2 + sep, b.length - 2 * (2 + sep));
                        }
                        return;
                    }
                    break;
                case '\n':
                case '\r':
                    save('\n');
                    incLineNumber();
                    if (tk == null) buff.reset();
                    break;
                default:
                    if (tk != null) saveAndNext();
                    else next();
            }
        }
    }

    private void readString(int del, Token tk) {
        saveAndNext();
        while (current != del) {
            switch (current) {
                case EOZ:
                    throw lexError("unfinished string", TK_EOS);
                case '\n':
                case '\r':
                    throw lexError("unfinished string", TK_STRING);
                case '\\': {
                    int c;
                    next();
                    switch (current) {
                        case 'a': c = 7; break;
                        case 'b': c = '\b'; break;
                        case 'f': c = '\f'; break;
                        case 'n': c = '\n'; break;
                        case 'r': c = '\r'; break;
                        case 't': c = '\t'; break;
                        case 'v': c = 11; break;
                        case '\n':
                        case '\r':
                            save('\n');
                            incLineNumber();
                            continue;
                        case EOZ:
                            continue;
                        default: {
                            if (!isDigit(current)) {
                                saveAndNext();
                            } else {
                                int i = 0;
                                c = 0;
                                do {
                                    c = 10 * c + (current - '0');
                                    next();
                                } while (++i < 3 && isDigit(current));
                                if (c > 255) throw lexError("escape sequence too large", TK_STRING);
                                save(c);
                            }
                            continue;
                        }
                    }
                    save(c);
                    next();
                    continue;
                }
                default:
                    saveAndNext();
            }
        }
        saveAndNext();
        byte[] b = buff.toByteArray();
        tk.string = LuaString.copyOf(b, 1, b.length - 2);
    }

    private int llex(Token tk) {
        buff.reset();
        for (;;) {
            switch (current) {
                case '\n':
                case '\r':
                    incLineNumber();
                    continue;
                case '-': {
                    next();
                    if (current != '-') return '-';
                    next();
                    if (current == '[') {
                        int sep = skipSep();
                        buff.reset();
                        if (sep >= 0) {
                            readLongString(null, sep);
                            buff.reset();
                            continue;
                        }
                    }
                    while (!currIsNewline() && current != EOZ) next();
                    continue;
                }
                case '[': {
                    int sep = skipSep();
                    if (sep >= 0) {
                        readLongString(tk, sep);
                        return TK_STRING;
                    } else if (sep == -1) {
                        return '[';
                    } else {
                        throw lexError("invalid long string delimiter", TK_STRING);
                    }
                }
                case '=':
                    next();
                    if (current != '=') return '=';
                    next();
                    return TK_EQ;
                case '<':
                    next();
                    if (current != '=') return '<';
                    next();
                    return TK_LE;
                case '>':
                    next();
                    if (current != '=') return '>';
                    next();
                    return TK_GE;
                case '~':
                    next();
                    if (current != '=') return '~';
                    next();
                    return TK_NE;
                case '"':
                case '\'':
                    readString(current, tk);
                    return TK_STRING;
                case '.':
                    saveAndNext();
                    if (checkNext(".")) {
                        if (checkNext(".")) return TK_DOTS;
                        return TK_CONCAT;
                    } else if (!isDigit(current)) {
                        return '.';
                    } else {
                        readNumeral(tk);
                        return TK_NUMBER;
                    }
                case EOZ:
                    return TK_EOS;
                default: {
                    if (isSpace(current)) {
                        next();
                        continue;
                    } else if (isDigit(current)) {
                        readNumeral(tk);
                        return TK_NUMBER;
                    } else if (isAlpha(current) || current == '_') {
                        do {
                            saveAndNext();
                        } while (isAlnum(current) || current == '_');
                        byte[] b = buff.toByteArray();
                        int r = reserved(b);
                        if (r > 0) return r;
                        tk.string = LuaString.wrap(b);
                        return TK_NAME;
                    } else {
                        int c = current;
                        next();
                        return c;
                    }
                }
            }
        }
    }

    private static int reserved(byte[] b) {
        if (b.length < 2 || b.length > 8) return 0;
        String s = new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
        for (int i = 0; i < NUM_RESERVED; i++) if (TOKENS[i].equals(s)) return FIRST_RESERVED + i;
        return 0;
    }

    void nextToken() {
        lastline = linenumber;
        if (lookahead.token != TK_EOS) {
            t.copyFrom(lookahead);
            lookahead.token = TK_EOS;
        } else {
            t.token = llex(t);
        }
    }

    void lookahead() {
        lookahead.token = llex(lookahead);
    }
}
