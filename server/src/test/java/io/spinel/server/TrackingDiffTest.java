package io.spinel.server;

import io.spinel.server.testing.ServerPair;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client-side caching compared with redis-server: default, OPTIN/OPTOUT, NOLOOP, BCAST with
 * prefixes, RESP2 redirection to __redis__:invalidate, flush invalidations; every byte the
 * tracking clients receive must match.
 */
class TrackingDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static TwinClient twin(List<String> diffs) throws IOException {
        return new TwinClient(servers.redis().port(), servers.spinel().port(), diffs);
    }

    @Test
    void resp3DefaultOptinNoloopAndBcast() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient t = twin(diffs); TwinClient w = twin(diffs)) {
            t.r.call(TwinClient.bytes("HELLO", "3")); // replies differ only by client id
            t.s.call(TwinClient.bytes("HELLO", "3"));
            t.call("CLIENT", "TRACKING", "on");
            t.call("SET", "k1", "v");
            t.call("GET", "k1");
            w.call("SET", "k1", "v2");
            t.read("invalidate k1");
            w.call("SET", "k1", "v3");
            t.call("PING");
            t.call("GET", "k1");
            t.call("SET", "k1", "mine");
            t.read("own invalidation after reply");
            t.call("CLIENT", "TRACKINGINFO");
            t.call("CLIENT", "TRACKING", "on", "OPTIN");
            t.call("CLIENT", "TRACKING", "off");
            t.call("CLIENT", "TRACKING", "on", "OPTIN");
            t.call("GET", "k2");
            w.call("SET", "k2", "x");
            t.call("CLIENT", "CACHING", "yes");
            t.call("GET", "k2");
            w.call("SET", "k2", "y");
            t.read("optin invalidation");
            t.call("CLIENT", "CACHING", "no");
            t.call("CLIENT", "TRACKING", "off");
            t.call("CLIENT", "TRACKING", "on", "NOLOOP");
            t.call("GET", "k3");
            t.call("SET", "k3", "self");
            t.call("PING");
            t.call("CLIENT", "TRACKING", "off");
            t.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a:", "PREFIX", "b:");
            t.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a:x");
            w.call("MSET", "a:1", "1", "b:2", "2", "c:3", "3");
            t.read("bcast a:");
            t.read("bcast b:");
            t.call("CLIENT", "TRACKINGINFO");
            t.call("CLIENT", "TRACKING", "on", "PREFIX", "x");
            t.call("CLIENT", "TRACKING", "on", "BCAST", "OPTIN");
            t.call("CLIENT", "TRACKING", "off");
            t.call("CLIENT", "TRACKING", "on");
            t.call("GET", "f1");
            w.call("FLUSHALL");
            t.read("flush invalidation");
            t.call("CLIENT", "CACHING", "yes");
            t.call("CLIENT", "TRACKING", "maybe");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void scriptsTrackTheirDeclaredKeysOnlyWhenTheyRead() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient t = twin(diffs); TwinClient w = twin(diffs)) {
            t.r.call(TwinClient.bytes("HELLO", "3"));
            t.s.call(TwinClient.bytes("HELLO", "3"));
            t.call("CLIENT", "TRACKING", "on", "NOLOOP");
            t.call("SET", "sk1", "1");
            t.call("GET", "sk1");
            // NOLOOP: the script's write is the caller's own, no invalidation comes back
            t.call("EVAL", "return redis.call('set', KEYS[1], '2')", "1", "sk1");
            t.call("GET", "sk1");
            t.call("CLIENT", "TRACKING", "off");
            t.call("CLIENT", "TRACKING", "on");
            // a script that only writes tracks nothing; one that reads tracks its declared keys
            t.call("EVAL", "redis.call('set', 'sa3', 'bar')", "2", "sa1", "sa2");
            w.call("MSET", "sa2", "2", "sa1", "2");
            t.call("EVAL", "redis.call('get', 'sa3')", "2", "sa1", "sa2");
            w.call("MSET", "sa2", "3", "sa1", "3");
            t.read("invalidate sa2");
            t.read("invalidate sa1");
            // EVAL_RO is judged by the commands it runs, not by its own read-only flag
            t.call("EVAL_RO", "redis.call('ping')", "2", "sa1", "sa2");
            w.call("MSET", "sa2", "4", "sa1", "4");
            t.call("EVAL_RO", "redis.call('get', 'sa1')", "2", "sa1", "sa2");
            w.call("MSET", "sa2", "5", "sa1", "5");
            t.read("invalidate sa2 after EVAL_RO");
            t.read("invalidate sa1 after EVAL_RO");
            t.call("PING");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void resp2RedirectToPubSubClient() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient sub = twin(diffs); TwinClient t = twin(diffs); TwinClient w = twin(diffs)) {
            String[] ids = sub.ids();
            sub.call("SUBSCRIBE", "__redis__:invalidate");
            t.r.call(TwinClient.bytes("CLIENT", "TRACKING", "on", "REDIRECT", ids[0]));
            t.s.call(TwinClient.bytes("CLIENT", "TRACKING", "on", "REDIRECT", ids[1]));
            t.call("GET", "rk");
            w.call("SET", "rk", "1");
            sub.read("redirected invalidation");
            t.call("CLIENT", "TRACKING", "on", "REDIRECT", "999999");
        }
        assertThat(diffs).isEmpty();
    }
}
