package io.spinel.junit;

import io.spinel.core.embedded.ManualClock;
import io.spinel.core.embedded.SpinelClient;
import io.spinel.server.SpinelServer;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** One server started by the extension, with what tests are told about it. Closed with its scope. */
final class RunningSpinel implements AutoCloseable {
    static final String HOST = "127.0.0.1";

    final SpinelServer server;
    /** The unique id of the extension context whose end stops this server. */
    final String owner;
    final URI uri;
    /** The clock the server's keys expire by, when the tests move it; null for the system clock. */
    final ManualClock clock;
    private final String password;
    private SpinelClient client;

    private RunningSpinel(SpinelServer server, String owner, String password, ManualClock clock) {
        this.server = server;
        this.clock = clock;
        this.owner = owner;
        this.password = password;
        String auth = password.isEmpty() ? "" : ":" + userInfo(password) + "@";
        this.uri = URI.create("redis://" + auth + HOST + ":" + server.port());
    }

    /** Percent-encoded, as URI.getUserInfo() (which clients read) decodes it; not form-encoded. */
    private static String userInfo(String password) {
        return URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static RunningSpinel start(List<String[]> options, boolean manualClock, String owner) {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", HOST);
        ManualClock clock = manualClock ? new ManualClock() : null;
        if (clock != null) b.clock(clock);
        String password = "";
        for (String[] o : options) {
            b.option(o[0], o[1]);
            if (o[0].equalsIgnoreCase("requirepass")) password = o[1];
        }
        return new RunningSpinel(b.start(), owner, password, clock);
    }

    int port() {
        return server.port();
    }

    /** The in-process connection injected into tests, opened on first use. */
    synchronized SpinelClient client() {
        if (client == null || client.isClosed()) client = connect();
        return client;
    }

    private SpinelClient connect() {
        SpinelClient c = SpinelClient.connect(server.engine());
        if (!password.isEmpty()) c.auth(password);
        return c;
    }

    /** FLUSHALL on a connection of its own, closed at once so no test sees it in CLIENT LIST. */
    void flushAll() {
        try (SpinelClient c = connect()) {
            c.flushAll();
        }
    }

    @Override
    public synchronized void close() {
        if (client != null) client.close();
        server.close();
    }
}
