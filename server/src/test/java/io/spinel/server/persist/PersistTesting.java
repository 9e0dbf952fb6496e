package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Helpers shared by the persistence tests: servers in a directory, INFO fields, waiting, tools. */
final class PersistTesting {
    private PersistTesting() {
    }

    /** An in-process Spinel working in dir with the given options (name, value pairs). */
    static SpinelServer spinel(Path dir, String... options) {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("dir", dir.toString());
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b.start();
    }

    /** As {@link #spinel}, logging into out (to check what start-up reports). */
    static SpinelServer spinelLogging(java.io.ByteArrayOutputStream out, Path dir, String... options) {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("dir", dir.toString()).log(new io.spinel.core.Log(new java.io.PrintStream(out, true)));
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b.start();
    }

    /** RESP form of a command, as AOF files hold them. */
    static String resp(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        return sb.toString();
    }

    /** A field of INFO persistence (or any section). */
    static String info(RawClient c, String field) throws IOException {
        String all = new String(c.call("INFO", "all"), StandardCharsets.ISO_8859_1);
        for (String line : all.split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        return null;
    }

    /** Waits until the named INFO field has the value (a background save or rewrite finished). */
    static void await(RawClient c, String field, String value) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (!value.equals(info(c, field))) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError(field + " never became " + value);
            Thread.sleep(10);
        }
    }

    /** Runs a tool (redis-check-rdb, redis-check-aof); returns exit code and output. */
    static Result run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timeout running " + String.join(" ", cmd));
        }
        return new Result(p.exitValue(), out);
    }

    record Result(int exit, String output) {
    }

    static boolean toolAvailable(String name) {
        return Files.isExecutable(Path.of("/usr/bin/" + name));
    }

    /** Copies a directory tree. */
    static void copyTree(Path from, Path to) throws IOException {
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(from)) {
            s.forEach(all::add);
        }
        for (Path p : all) {
            Path t = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) Files.createDirectories(t);
            else Files.copy(p, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
