import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * MULTI / 5 x SET / EXEC, side by side: redis-benchmark cannot send a transaction, so this sends
 * each one as a single write of 7 commands from each of N connections (one thread each) and waits
 * for its 12 reply lines (+OK, 5 x +QUEUED, *5 and 5 x +OK) before the next.
 *
 * <pre>
 *   java bench/MultiExecBench.java SPINEL_PORT REDIS_PORT [clients=50] [seconds=10] [rounds=3]
 * </pre>
 *
 * Alternates the two servers for the given rounds and prints one Markdown row of medians:
 * transactions/s, p50 and p99 latency of a whole transaction, for each server, and the ratio.
 * bench/multi-exec.sh starts both servers and runs this.
 */
public class MultiExecBench {
    record Result(double tps, double p50, double p99) {
    }

    public static void main(String[] args) throws Exception {
        int spinel = Integer.parseInt(args[0]), redis = Integer.parseInt(args[1]);
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        run(spinel, clients, 2); // JIT warm-up of the server, not measured
        List<Result> s = new ArrayList<>(), r = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            if (i % 2 == 0) {
                s.add(run(spinel, clients, seconds));
                r.add(run(redis, clients, seconds));
            } else {
                r.add(run(redis, clients, seconds));
                s.add(run(spinel, clients, seconds));
            }
        }
        Result ms = median(s), mr = median(r);
        System.out.printf("| MULTI, 5 x SET, EXEC (%d clients) | %,.0f | %,.0f | %.2fx | %.3f | %.3f | %.3f | %.3f |%n",
                clients, ms.tps, mr.tps, ms.tps / mr.tps, ms.p50, mr.p50, ms.p99, mr.p99);
    }

    static Result median(List<Result> rs) {
        double[] t = rs.stream().mapToDouble(Result::tps).sorted().toArray();
        double[] a = rs.stream().mapToDouble(Result::p50).sorted().toArray();
        double[] b = rs.stream().mapToDouble(Result::p99).sorted().toArray();
        return new Result(t[t.length / 2], a[a.length / 2], b[b.length / 2]);
    }

    static byte[] transaction(int client) {
        StringBuilder sb = new StringBuilder("*1\r\n$5\r\nMULTI\r\n");
        for (int k = 0; k < 5; k++) {
            String key = "tx:" + client + ":" + k;
            sb.append("*3\r\n$3\r\nSET\r\n$").append(key.length()).append("\r\n").append(key).append("\r\n$3\r\nxyz\r\n");
        }
        sb.append("*1\r\n$4\r\nEXEC\r\n");
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static Result run(int port, int clients, int seconds) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        long[][] latencies = new long[clients][];
        int[] counts = new int[clients];
        Thread[] threads = new Thread[clients];
        for (int c = 0; c < clients; c++) {
            int id = c;
            threads[c] = new Thread(() -> {
                long[] lat = new long[1 << 16];
                int n = 0;
                byte[] tx = transaction(id);
                byte[] buf = new byte[4096];
                try (Socket s = new Socket()) {
                    s.setTcpNoDelay(true);
                    s.connect(new InetSocketAddress("127.0.0.1", port));
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        out.write(tx);
                        int lines = 0;
                        while (lines < 12) {
                            int got = in.read(buf);
                            if (got < 0) throw new IOException("closed");
                            for (int i = 0; i < got; i++) if (buf[i] == '\n') lines++;
                        }
                        if (n == lat.length) lat = Arrays.copyOf(lat, n * 2);
                        lat[n++] = System.nanoTime() - t0;
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
                latencies[id] = Arrays.copyOf(lat, n);
                counts[id] = n;
            });
        }
        long start = System.nanoTime();
        for (Thread t : threads) t.start();
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (Thread t : threads) t.join();
        double elapsed = (System.nanoTime() - start) / 1e9;
        long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        long total = Arrays.stream(counts).sum();
        return new Result(total / elapsed, all[all.length / 2] / 1e6, all[(int) (all.length * 0.99)] / 1e6);
    }
}
