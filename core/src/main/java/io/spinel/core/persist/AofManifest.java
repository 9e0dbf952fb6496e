package io.spinel.core.persist;

import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.SplitArgs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifest of a Redis 7 multi-part AOF (appenddirname/appendfilename.manifest): one line per
 * file, {@code file <name> seq <n> type <b|h|i>}, the base first, then history, then the
 * incremental files in order. Names needing it are quoted as sdscatrepr does.
 */
final class AofManifest {
    static final char BASE = 'b';
    static final char HISTORY = 'h';
    static final char INCR = 'i';

    record Info(String name, long seq, char type) {
    }

    Info base;
    final List<Info> history = new ArrayList<>();
    final List<Info> incrs = new ArrayList<>();
    long baseSeq;
    long incrSeq;

    AofManifest copy() {
        AofManifest m = new AofManifest();
        m.base = base;
        m.history.addAll(history);
        m.incrs.addAll(incrs);
        m.baseSeq = baseSeq;
        m.incrSeq = incrSeq;
        return m;
    }

    boolean isEmpty() {
        return base == null && incrs.isEmpty();
    }

    // ---- naming ---------------------------------------------------------------------------------

    /** A new base (appendfilename.N.base.rdb or .aof); the previous base becomes history. */
    String newBase(String fileName, boolean rdb) {
        if (base != null) history.add(0, new Info(base.name, base.seq, HISTORY));
        baseSeq++;
        base = new Info(fileName + "." + baseSeq + ".base" + (rdb ? ".rdb" : ".aof"), baseSeq, BASE);
        return base.name;
    }

    /** A new incremental file (appendfilename.N.incr.aof) at the end of the list. */
    String newIncr(String fileName) {
        incrSeq++;
        Info i = new Info(fileName + "." + incrSeq + ".incr.aof", incrSeq, INCR);
        incrs.add(i);
        return i.name;
    }

    /** The incremental file being appended to, created if there is none. */
    String lastIncr(String fileName) {
        if (incrs.isEmpty()) return newIncr(fileName);
        return incrs.get(incrs.size() - 1).name;
    }

    /**
     * After a rewrite: the incremental files the new base covers become history; with the AOF on
     * the last one, still being written, stays.
     */
    void markRewrittenIncrsAsHistory(boolean keepLast) {
        int keep = keepLast && !incrs.isEmpty() ? 1 : 0;
        while (incrs.size() > keep) {
            Info i = incrs.remove(incrs.size() - 1 - keep);
            history.add(0, new Info(i.name, i.seq, HISTORY));
        }
    }

    // ---- text form ------------------------------------------------------------------------------

    String format() {
        StringBuilder sb = new StringBuilder();
        if (base != null) line(sb, base);
        for (Info i : history) line(sb, i);
        for (Info i : incrs) line(sb, i);
        return sb.toString();
    }

    private static void line(StringBuilder sb, Info i) {
        sb.append("file ").append(repr(i.name)).append(" seq ").append(i.seq).append(" type ").append(i.type).append('\n');
    }

    /** The name as is, or quoted with escapes when it holds blanks, quotes or unprintable bytes. */
    static String repr(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        boolean needs = false;
        for (byte x : b) {
            int c = x & 0xff;
            if (c == '\\' || c == '"' || c <= ' ' || c >= 127) {
                needs = true;
                break;
            }
        }
        return needs ? io.spinel.core.util.Repr.quote(b) : name;
    }

    /**
     * Reads a manifest, failing as Redis does (its messages) on anything malformed: empty file,
     * over-long or unparsable line, a path instead of a name, missing fields, two bases,
     * incremental sequence numbers not increasing, unknown type.
     */
    static AofManifest parse(Path file) {
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new PersistenceException("Fatal error: can't open the AOF manifest file " + file + " for reading: "
                    + e.getMessage(), e);
        }
        AofManifest m = new AofManifest();
        long maxSeq = 0;
        int p = 0;
        int lineNo = 0;
        Args args = new Args();
        if (data.length == 0) throw manifestError(null, 0, "Found an empty AOF manifest");
        while (p < data.length) {
            int nl = p;
            while (nl < data.length && data[nl] != '\n') nl++;
            lineNo++;
            String raw = new String(data, p, nl - p, StandardCharsets.UTF_8);
            if (nl - p > 1024 || nl == data.length) {
                if (!raw.isEmpty() && raw.charAt(0) == '#') {
                    p = nl + 1;
                    continue;
                }
                throw manifestError(raw, lineNo, "The AOF manifest file contains too long line");
            }
            p = nl + 1;
            if (raw.startsWith("#")) continue;
            String line = raw.strip();
            if (line.isEmpty()) throw manifestError(line, lineNo, "Invalid AOF manifest file format");
            byte[] lb = line.getBytes(StandardCharsets.UTF_8);
            if (!SplitArgs.split(lb, 0, lb.length, new byte[lb.length], args) || args.count() < 6 || args.count() % 2 != 0) {
                throw manifestError(line, lineNo, "Invalid AOF manifest file format");
            }
            String name = null;
            long seq = 0;
            char type = 0;
            for (int i = 0; i < args.count(); i += 2) {
                String k = args.string(i);
                String v = new String(args.buf(i + 1), args.off(i + 1), args.len(i + 1), StandardCharsets.UTF_8);
                if (k.equalsIgnoreCase("file")) {
                    name = v;
                    if (name.contains("/")) throw manifestError(line, lineNo, "File can't be a path, just a filename");
                } else if (k.equalsIgnoreCase("seq")) {
                    seq = atoll(v);
                } else if (k.equalsIgnoreCase("type")) {
                    type = v.isEmpty() ? 0 : v.charAt(0);
                }
            }
            if (name == null || name.isEmpty() || seq == 0 || type == 0) {
                throw manifestError(line, lineNo, "Invalid AOF manifest file format");
            }
            Info info = new Info(name, seq, type);
            if (type == BASE) {
                if (m.base != null) throw manifestError(line, lineNo, "Found duplicate base file information");
                m.base = info;
                m.baseSeq = seq;
            } else if (type == HISTORY) {
                m.history.add(info);
            } else if (type == INCR) {
                if (seq <= maxSeq) throw manifestError(line, lineNo, "Found a non-monotonic sequence number");
                m.incrs.add(info);
                m.incrSeq = seq;
                maxSeq = seq;
            } else {
                throw manifestError(line, lineNo, "Unknown AOF file type");
            }
        }
        return m;
    }

    /** C's atoll: leading blanks, optional sign, digits; anything else stops (0 if none). */
    private static long atoll(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) neg = s.charAt(i++) == '-';
        long v = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) v = v * 10 + (s.charAt(i++) - '0');
        return neg ? -v : v;
    }

    private static PersistenceException manifestError(String line, int lineNo, String why) {
        StringBuilder sb = new StringBuilder("\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
        if (line != null) sb.append("Reading the manifest file, at line ").append(lineNo).append("\n>>> '").append(line).append("'\n");
        sb.append(why);
        return new PersistenceException(sb.toString());
    }

    /** Writes the manifest durably: temporary file, fsync, rename, fsync of the directory. */
    void write(Path dir, String fileName) throws IOException {
        Path target = dir.resolve(fileName + ".manifest");
        Path temp = dir.resolve("temp-" + fileName + ".manifest");
        byte[] b = format().getBytes(StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bb = ByteBuffer.wrap(b);
            while (bb.hasRemaining()) ch.write(bb);
            ch.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        FileSink.fsyncDirectory(dir);
    }
}
