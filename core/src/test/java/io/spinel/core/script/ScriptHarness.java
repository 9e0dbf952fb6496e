package io.spinel.core.script;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * An engine without a network: commands are fed to one client's query buffer and its replies
 * come back as text (RESP with CRLF). Everything runs on the test thread. (Public for the
 * engine's own tests in io.spinel.core.)
 */
public final class ScriptHarness implements AutoCloseable {
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "script-harness");
        t.setDaemon(true);
        return t;
    });
    public final Engine engine;
    private final Conn conn = new Conn();
    private final Client client;

    public ScriptHarness() {
        engine = new Engine(new Config(), loop, () -> true, Log.silent());
        client = engine.connect(conn);
    }

    /** Runs one command; returns everything it replied. */
    public String call(String... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        for (String a : args) {
            byte[] x = a.getBytes(StandardCharsets.ISO_8859_1);
            b.writeBytes(("$" + x.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            b.writeBytes(x);
            b.writeBytes(new byte[] {'\r', '\n'});
        }
        byte[] cmd = b.toByteArray();
        byte[] dst = client.reader().writable(cmd.length);
        System.arraycopy(cmd, 0, dst, client.reader().writeOffset(), cmd.length);
        client.reader().commit(cmd.length);
        engine.processInput(client);
        engine.flushPending();
        return conn.take();
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }

    private static final class Conn implements Client.Connection {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        String take() {
            String s = out.toString(StandardCharsets.ISO_8859_1);
            out.reset();
            return s;
        }

        @Override
        public void write(byte[] buf, int off, int len) {
            out.write(buf, off, len);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String remoteAddress() {
            return "127.0.0.1:1";
        }

        @Override
        public String localAddress() {
            return "127.0.0.1:2";
        }
    }
}
