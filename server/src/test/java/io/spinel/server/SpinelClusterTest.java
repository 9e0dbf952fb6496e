package io.spinel.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The in-process cluster builder: the layout redis-cli --cluster create makes, ready for a cluster client. */
class SpinelClusterTest {
    @Test
    void threeMastersWithAReplicaEachServeACluserClient() {
        try (SpinelCluster cluster = SpinelCluster.builder().masters(3).replicasPerMaster(1)
                .option("cluster-node-timeout", "2000").start()) {
            assertEquals(3, cluster.masters().size());
            assertEquals(3, cluster.replicas().size());
            assertEquals(6, cluster.addresses().size());
            try (Jedis j = new Jedis("127.0.0.1", cluster.replicas().get(1).port())) {
                List<Object> slots = j.clusterSlots();
                assertEquals(3, slots.size());
                // the split redis-cli makes, each range with its master and its replica
                long[][] ranges = {{0, 5460}, {5461, 10922}, {10923, 16383}};
                for (int i = 0; i < 3; i++) {
                    List<?> r = (List<?>) slots.get(i);
                    assertEquals(ranges[i][0], r.get(0));
                    assertEquals(ranges[i][1], r.get(1));
                    assertEquals((long) cluster.masters().get(i).port(), ((List<?>) r.get(2)).get(1));
                    assertEquals((long) cluster.replicas().get(i).port(), ((List<?>) r.get(3)).get(1));
                }
                assertTrue(j.info("replication").contains("role:slave"));
            }
            Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", cluster.masters().get(0).port()));
            try (JedisCluster jedis = new JedisCluster(seeds)) {
                for (int i = 0; i < 100; i++) jedis.set("k" + i, "v" + i);
                for (int i = 0; i < 100; i++) assertEquals("v" + i, jedis.get("k" + i));
            }
        }
    }
}
