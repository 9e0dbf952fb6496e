package io.spinel.server;

import io.spinel.core.Engine;
import io.spinel.core.config.Config;
import io.spinel.core.config.ConfigSupport;
import io.spinel.core.util.NativeMemory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The standalone server's process title (Redis's set-proc-title and proc-title-template): what
 * ps and /proc/PID/cmdline show, "./spinel-server *:7000" (port 7000) by default, instead of the JVM's long
 * command line. As setproctitle(3) does, it writes over the process's argument strings, whose
 * place the kernel gives in /proc/self/stat; the title is cut to their length (the JVM's command
 * line, a thousand bytes and more). Linux only, and written as {@link NativeMemory} writes (the
 * launcher opens the JDK internals it needs): elsewhere the command line stays.
 */
final class ProcTitle {
    private final long start;
    private final int size;

    private ProcTitle(long start, int size) {
        this.start = start;
        this.size = size;
    }

    /**
     * Sets the title from the template now (set-proc-title yes) and again whenever CONFIG SET
     * changes the template. {@code execName} is {title}: how the server was started (the
     * launcher's name as typed, Redis's argv[0]).
     */
    static void install(Engine engine, String execName) {
        Config config = engine.config();
        if (!config.getBool("set-proc-title")) return;
        ProcTitle t = ofThisProcess();
        if (t == null) return;
        t.set(title(engine, execName));
        config.listen("proc-title-template", o -> t.set(title(engine, execName)));
    }

    /** The argument strings' place, or null where it cannot be known or written. */
    static ProcTitle ofThisProcess() {
        if (!NativeMemory.available()) return null;
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.ISO_8859_1);
            // fields after the command name, which is in parentheses and may hold spaces: the
            // third field first, arg_start and arg_end are the 48th and 49th
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            long argStart = Long.parseLong(f[48 - 3]);
            long argEnd = Long.parseLong(f[49 - 3]);
            if (argStart <= 0 || argEnd <= argStart || argEnd - argStart > 1 << 20) return null;
            return new ProcTitle(argStart, (int) (argEnd - argStart));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Redis's expansion of proc-title-template for this server. */
    static String title(Engine engine, String execName) {
        Config config = engine.config();
        int port = config.getInt("port");
        int tlsPort = config.getInt("tls-port");
        int listening = port != 0 ? port : tlsPort;
        String[] bind = Config.words(config.get("bind").trim());
        String unixsocket = config.get("unixsocket");
        String configFile = engine.configFile();
        String t = ConfigSupport.expandProcTitle(config.get("proc-title-template"), name -> switch (name) {
            case "title" -> execName;
            case "listen-addr" -> listening != 0 ? (bind.length > 0 && !bind[0].isEmpty() ? bind[0] : "*") + ":" + listening
                    : "unixsocket:" + unixsocket;
            case "server-mode" -> engine.cluster() != null ? "[cluster]" : engine.sentinel() != null ? "[sentinel]" : "";
            case "config-file" -> configFile == null || configFile.isEmpty() ? "-" : configFile;
            case "port" -> Integer.toString(port);
            case "tls-port" -> Integer.toString(tlsPort);
            case "unixsocket" -> unixsocket;
            default -> null;
        });
        return t == null ? execName : t; // (the template was checked when set)
    }

    /** Writes the title over the argument strings, the rest of them zeroed. */
    void set(String title) {
        byte[] b = title.getBytes(StandardCharsets.UTF_8);
        // the last byte stays 0: the kernel then shows exactly these bytes
        byte[] all = new byte[size];
        System.arraycopy(b, 0, all, 0, Math.min(b.length, size - 1));
        NativeMemory.copyFrom(all, 0, start, size);
    }
}
