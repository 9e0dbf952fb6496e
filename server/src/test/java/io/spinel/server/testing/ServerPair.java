package io.spinel.server.testing;

import io.spinel.server.SpinelServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A redis-server and a Spinel server (on 127.0.0.1, random ports) for one differential test class:
 * {@code @RegisterExtension static final ServerPair servers = new ServerPair();}. The class is
 * skipped, with a message, where redis-server is not installed.
 */
public final class ServerPair implements BeforeAllCallback, AfterAllCallback {
    private RedisServerProcess redis;
    private SpinelServer spinel;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(),
                "redis-server not installed: differential tests skipped (apt-get install redis-server)");
        redis = RedisServerProcess.start();
        spinel = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (spinel != null) spinel.close();
        if (redis != null) redis.close();
        spinel = null;
        redis = null;
    }

    public RedisServerProcess redis() {
        return redis;
    }

    public SpinelServer spinel() {
        return spinel;
    }
}
