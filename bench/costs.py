#!/usr/bin/env python3
"""Each server's own time per call (INFO commandstats usec_per_call) and its rate at -P 16, Spinel
against Redis, for 158 command shapes beyond redis-benchmark's default tests: where the
load generator's core hides a server's cost at -P 1, this finds the commands a server spends more
on (SINTER on packed sets at 7x Redis's time was found this way).

    bench/costs.py SPINEL_PORT REDIS_PORT [ROUNDS] [REGEX]    (bench/costs.sh starts the servers)

Each case: FLUSHALL, its setup, CONFIG RESETSTAT, `redis-benchmark -c 50 -P 16 -n 200000 -r 1000`
of its command, then the command's commandstats line; Spinel first gets one pass of every case
(JIT warm-up); then ROUNDS alternating rounds (default 2), medians. Spinel's time per call
includes parsing the command (tens of ns: its clock is read once per pipelined command), Redis's
is its clock in whole microseconds per call: compare the cheap commands by their rates, not their
times. Lines marked << are slower than Redis or cost more than 1.1x its time."""
import subprocess, sys, statistics, re, shlex, hashlib, csv
sp, rp = int(sys.argv[1]), int(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
flt = sys.argv[4] if len(sys.argv) > 4 else None
R = 1000
def k(i): return "%012d" % i
def zadd(key, n): return "ZADD %s %s" % (key, " ".join("%d m:%s" % (i, k(i)) for i in range(n)))
def hset(key, n): return "HSET %s %s" % (key, " ".join("f:%s v%d" % (k(i), i) for i in range(n)))
def sadd(key, n, off=0): return "SADD %s %s" % (key, " ".join("m:%s" % k(i + off) for i in range(n)))
def rpush(key, n): return "RPUSH %s %s" % (key, " ".join("v%d" % i for i in range(n)))
def mset(n): return "MSET %s" % " ".join("key:%s v%d" % (k(i), i) for i in range(n))
def geoadd(key, n): return "GEOADD %s %s" % (key, " ".join("%.6f %.6f p:%s" % (13 + (i % 37) / 37.0, 38 + (i // 37) / 30.0, k(i)) for i in range(n)))
def sint(key, lo, n): return "SADD %s %s" % (key, " ".join(str(i) for i in range(lo, lo + n)))
def stream_with_group():
    # 199 entries, all read once by consumer c of group g (so all pending)
    return ["XADD st 1-%d f v" % i for i in range(1, 200)] + ["XGROUP CREATE st g 0", "XREADGROUP GROUP g c STREAMS st >"]
CASES = [
 # name, setup lines, benchmark command, commandstats name
 ("get", [mset(R)], "GET key:__rand_int__", "get"),
 ("set", [], "SET key:__rand_int__ xxx", "set"),
 ("incr", [], "INCR c:__rand_int__", "incr"),
 ("append", [mset(R)], "APPEND key:__rand_int__ x", "append"),
 ("getrange", [mset(R)], "GETRANGE key:__rand_int__ 0 2", "getrange"),
 ("strlen", [mset(R)], "STRLEN key:__rand_int__", "strlen"),
 ("mget10", [mset(R)], "MGET " + " ".join(["key:__rand_int__"] * 10), "mget"),
 ("exists", [mset(R)], "EXISTS key:__rand_int__", "exists"),
 ("expire", [mset(R)], "EXPIRE key:__rand_int__ 1000", "expire"),
 ("ttl", [mset(R)], "TTL key:__rand_int__", "ttl"),
 ("type", [mset(R)], "TYPE key:__rand_int__", "type"),
 ("del", [], "DEL key:__rand_int__", "del"),
 ("hget10", [hset("h", 10)], "HGET h f:000000000005", "hget"),
 ("hget1k", [hset("h", R)], "HGET h f:__rand_int__", "hget"),
 ("hset1k", [hset("h", R)], "HSET h f:__rand_int__ v", "hset"),
 ("hincrby", [], "HINCRBY h f:__rand_int__ 1", "hincrby"),
 ("hgetall10", [hset("h", 10)], "HGETALL h", "hgetall"),
 ("hmget5", [hset("h", R)], "HMGET h f:__rand_int__ f:__rand_int__ f:__rand_int__ f:__rand_int__ f:__rand_int__", "hmget"),
 ("hexists", [hset("h", R)], "HEXISTS h f:__rand_int__", "hexists"),
 ("lindex", [rpush("l", R)], "LINDEX l 500", "lindex"),
 ("lrange10", [rpush("l", R)], "LRANGE l 0 9", "lrange"),
 ("llen", [rpush("l", R)], "LLEN l", "llen"),
 ("lset", [rpush("l", R)], "LSET l 10 x", "lset"),
 ("rpoplpush", [rpush("l", R)], "RPOPLPUSH l l", "rpoplpush"),
 ("sismember", [sadd("s", R)], "SISMEMBER s m:__rand_int__", "sismember"),
 ("smembers10", [sadd("s", 10)], "SMEMBERS s", "smembers"),
 ("scard", [sadd("s", R)], "SCARD s", "scard"),
 ("srandmember", [sadd("s", R)], "SRANDMEMBER s", "srandmember"),
 ("sinter100", [sadd("a", 100), sadd("b", 100, 50)], "SINTER a b", "sinter"),
 ("sunion100", [sadd("a", 100), sadd("b", 100, 50)], "SUNION a b", "sunion"),
 ("sdiff100", [sadd("a", 100), sadd("b", 100, 50)], "SDIFF a b", "sdiff"),
 ("sinterstore", [sadd("a", 100), sadd("b", 100, 50)], "SINTERSTORE d a b", "sinterstore"),
 ("sunionstore", [sadd("a", 60), sadd("b", 60, 30)], "SUNIONSTORE d a b", "sunionstore"),
 ("sintercard", [sadd("a", 100), sadd("b", 100, 50)], "SINTERCARD 2 a b", "sintercard"),
 ("sinter20", [sadd("a", 20), sadd("b", 20, 10)], "SINTER a b", "sinter"),
 ("sadd100", [sadd("s", 100)], "SADD s " + " ".join("m:%s" % k(i) for i in range(100)), "sadd"),
 ("smismember100", [sadd("s", 100)], "SMISMEMBER s " + " ".join("m:%s" % k(i) for i in range(0, 200, 2)), "smismember"),
 ("srem100", [sadd("s", 100)], "SREM s " + " ".join("x:%s" % k(i) for i in range(100)), "srem"),
 ("sadd1k", [sadd("s", R)], "SADD s m:__rand_int__", "sadd"),
 ("srem_sadd", [sadd("s", R)], "SREM s m:__rand_int__", "srem"),
 ("zscore1k", [zadd("z", R)], "ZSCORE z m:__rand_int__", "zscore"),
 ("zrank1k", [zadd("z", R)], "ZRANK z m:__rand_int__", "zrank"),
 ("zrange10", [zadd("z", R)], "ZRANGE z 100 109", "zrange"),
 ("zrangews", [zadd("z", R)], "ZRANGE z 100 109 WITHSCORES", "zrange"),
 ("zrangebyscore", [zadd("z", R)], "ZRANGEBYSCORE z 100 109", "zrangebyscore"),
 ("zincrby1k", [zadd("z", R)], "ZINCRBY z 1 m:__rand_int__", "zincrby"),
 ("zadd1k", [zadd("z", R)], "ZADD z __rand_int__ m:__rand_int__", "zadd"),
 ("zscore100", [zadd("z", 100)], "ZSCORE z m:000000000050", "zscore"),
 ("zrank100", [zadd("z", 100)], "ZRANK z m:000000000050", "zrank"),
 ("zcard", [zadd("z", R)], "ZCARD z", "zcard"),
 ("zcount", [zadd("z", R)], "ZCOUNT z 100 200", "zcount"),
 ("xadd", [], "XADD st * f v", "xadd"),
 ("xrange10", ["XADD st 1-%d f v" % i for i in range(1, 200)], "XRANGE st - + COUNT 10", "xrange"),
 ("xlen", ["XADD st * f v"], "XLEN st", "xlen"),
 ("pfadd", [], "PFADD hll __rand_int__", "pfadd"),
 ("scan", [mset(R)], "SCAN 0 COUNT 10", "scan"),
 ("randomkey", [mset(R)], "RANDOMKEY", "randomkey"),
 ("object", [mset(R)], "OBJECT ENCODING key:__rand_int__", "object|encoding"),
 ("getex", [mset(R)], "GETEX key:__rand_int__ EX 100", "getex"),
 ("setex", [], "SETEX key:__rand_int__ 100 v", "setex"),
 ("incrbyfloat", [], "INCRBYFLOAT f:__rand_int__ 1.5", "incrbyfloat"),
 ("lpos", [rpush("l", 100)], "LPOS l v50", "lpos"),
 ("hrandfield", [hset("h", R)], "HRANDFIELD h", "hrandfield"),
 ("zrevrange", [zadd("z", R)], "ZREVRANGE z 0 9", "zrevrange"),
 ("smismember", [sadd("s", R)], "SMISMEMBER s m:__rand_int__ m:__rand_int__ m:__rand_int__", "smismember"),
 ("bitcount", ["SETBIT bits 99999 1"], "BITCOUNT bits", "bitcount"),
 ("setbit", [], "SETBIT b 12345 1", "setbit"),
 ("echo", [], "ECHO hello", "echo"),
 ("zunionstore", [zadd("a", 100), zadd("b", 100)], "ZUNIONSTORE d 2 a b", "zunionstore"),
 ("zinterstore", [zadd("a", 100), zadd("b", 100)], "ZINTERSTORE d 2 a b", "zinterstore"),
 ("zunion1k", [zadd("a", 1000), zadd("b", 200)], "ZUNION 2 a b", "zunion"),
 ("zinter1k", [zadd("a", 1000), zadd("b", 200)], "ZINTER 2 a b", "zinter"),
 ("zrangestore", [zadd("a", 1000)], "ZRANGESTORE d a 0 99", "zrangestore"),
 ("zrem_zadd", [zadd("z", 100)], "ZREM z m:__rand_int__", "zrem"),
 ("zrangebylex", ["ZADD z " + " ".join("0 m:%s" % k(i) for i in range(1000))], "ZRANGEBYLEX z [m:000000000100 [m:000000000110", "zrangebylex"),
 ("hkeys100", [hset("h", 100)], "HKEYS h", "hkeys"),
 ("hvals100", [hset("h", 100)], "HVALS h", "hvals"),
 ("hdel", [hset("h", R)], "HDEL h f:__rand_int__", "hdel"),
 ("hset100", [hset("h", 100)], "HSET h f:000000000050 x", "hset"),
 ("hget100", [hset("h", 100)], "HGET h f:000000000099", "hget"),
 ("hincrbyfloat", [], "HINCRBYFLOAT h f:__rand_int__ 1.5", "hincrbyfloat"),
 ("lrem", [rpush("l", 100)], "LREM l 1 nothere", "lrem"),
 ("linsert", [rpush("l", 100)], "LINSERT l BEFORE nothere x", "linsert"),  # a pivot not there: the list does not grow run after run
 ("ltrim", [rpush("l", 100)], "LTRIM l 0 99", "ltrim"),
 ("sort", [rpush("l", 100)], "SORT l LIMIT 0 10 ALPHA", "sort"),
 ("getset", [], "GETSET key:__rand_int__ v", "getset"),
 ("setrange", [mset(R)], "SETRANGE key:__rand_int__ 1 ab", "setrange"),
 ("msetnx", [], "MSETNX a:__rand_int__ 1 b:__rand_int__ 2", "msetnx"),
 ("bitop", ["SET a " + "x" * 1000, "SET b " + "y" * 1000], "BITOP AND d a b", "bitop"),
 ("bitpos", ["SETBIT bits 99999 1"], "BITPOS bits 1", "bitpos"),
 ("pfcount2", ["PFADD h1 " + " ".join("a%d" % i for i in range(2000)), "PFADD h2 " + " ".join("b%d" % i for i in range(2000))], "PFCOUNT h1 h2", "pfcount"),
 ("pfmerge", ["PFADD h1 " + " ".join("a%d" % i for i in range(2000)), "PFADD h2 " + " ".join("b%d" % i for i in range(2000))], "PFMERGE d h1 h2", "pfmerge"),
 ("pfadd1", ["PFADD h " + " ".join("a%d" % i for i in range(20))], "PFADD h __rand_int__", "pfadd"),
 ("geoadd", [], "GEOADD g 13.361389 38.115556 m:__rand_int__", "geoadd"),
 ("geodist", ["GEOADD g 13.361389 38.115556 a 15.087269 37.502669 b"], "GEODIST g a b km", "geodist"),
 ("xread", ["XADD st 1-%d f v" % i for i in range(1, 200)], "XREAD COUNT 10 STREAMS st 1-100", "xread"),
 ("xrevrange", ["XADD st 1-%d f v" % i for i in range(1, 200)], "XREVRANGE st + - COUNT 10", "xrevrange"),
 ("lpushx", [rpush("l", 10)], "LPUSHX l v", "lpushx"),
 ("smove", [sadd("a", 100), sadd("b", 100, 50)], "SMOVE a b m:__rand_int__", "smove"),
 ("spop", [sadd("a", 100)], "SPOP a", "spop"),
 ("copy", [mset(10)], "COPY key:000000000001 k2 REPLACE", "copy"),
 ("rename", ["SET a 1"], "RENAME a a", "rename"),
 ("dbsize", [], "DBSIZE", "dbsize"),
 ("eval", [], "EVAL return 1 0", "eval"),
 # twenty-second session: command families the first sweep left out
 ("geosearch", [geoadd("g", R)], "GEOSEARCH g FROMLONLAT 13.5 38.5 BYRADIUS 50 km ASC COUNT 10", "geosearch"),
 ("georadiusmem", [geoadd("g", R)], "GEORADIUSBYMEMBER g p:000000000500 20 km WITHDIST", "georadiusbymember"),
 ("geopos", [geoadd("g", R)], "GEOPOS g p:000000000001 p:000000000002 p:000000000003", "geopos"),
 ("geohash", [geoadd("g", R)], "GEOHASH g p:000000000001 p:000000000002", "geohash"),
 ("bitfield", [], "BITFIELD bf INCRBY u8 100 1 GET u4 0", "bitfield"),
 ("bitfield_ro", ["SETBIT bf 1000 1"], "BITFIELD_RO bf GET u16 990", "bitfield_ro"),
 ("zrandmember", [zadd("z", R)], "ZRANDMEMBER z 5 WITHSCORES", "zrandmember"),
 ("zlexcount", ["ZADD z " + " ".join("0 m:%s" % k(i) for i in range(R))], "ZLEXCOUNT z [m:000000000100 [m:000000000900", "zlexcount"),
 ("zrevbyscore", [zadd("z", R)], "ZREVRANGEBYSCORE z 900 100 LIMIT 10 10", "zrevrangebyscore"),
 ("zmscore", [zadd("z", R)], "ZMSCORE z m:__rand_int__ m:__rand_int__ m:__rand_int__ m:__rand_int__", "zmscore"),
 ("zremrange0", [zadd("z", R)], "ZREMRANGEBYSCORE z 5000 6000", "zremrangebyscore"),
 ("zaddgt", [zadd("z", R)], "ZADD z GT CH __rand_int__ m:__rand_int__", "zadd"),
 ("zscan", [zadd("z", R)], "ZSCAN z 0 COUNT 10", "zscan"),
 ("zscan100", [zadd("z", 100)], "ZSCAN z 0", "zscan"),
 ("zdiff", [zadd("a", 100), zadd("b", 50)], "ZDIFF 2 a b", "zdiff"),
 ("zunionmax", [zadd("a", 100), zadd("b", 100)], "ZUNIONSTORE d 2 a b WEIGHTS 1 2 AGGREGATE MAX", "zunionstore"),
 ("lmove", [rpush("l", R)], "LMOVE l l LEFT RIGHT", "lmove"),
 ("blmove", [rpush("l", R)], "BLMOVE l l RIGHT LEFT 0", "blmove"),
 ("lrange100", [rpush("l", R)], "LRANGE l 0 99", "lrange"),
 ("lposcount", [rpush("l", 100)], "LPOS l v50 COUNT 0", "lpos"),
 ("hscan", [hset("h", R)], "HSCAN h 0 COUNT 10", "hscan"),
 ("hscan100", [hset("h", 100)], "HSCAN h 0", "hscan"),
 ("hgetall1k", [hset("h", R)], "HGETALL h", "hgetall"),
 ("hrandfield10", [hset("h", R)], "HRANDFIELD h 10 WITHVALUES", "hrandfield"),
 ("hsetnx", [hset("h", R)], "HSETNX h f:__rand_int__ v", "hsetnx"),
 ("hstrlen", [hset("h", R)], "HSTRLEN h f:__rand_int__", "hstrlen"),
 ("sscan", [sadd("s", R)], "SSCAN s 0 COUNT 10", "sscan"),
 ("srandmember10", [sadd("s", R)], "SRANDMEMBER s -10", "srandmember"),
 ("sinterint", [sint("a", 0, 300), sint("b", 150, 300)], "SINTER a b", "sinter"),
 ("sunionint", [sint("a", 0, 300), sint("b", 150, 300)], "SUNION a b", "sunion"),
 ("sdiffstore", [sadd("a", 100), sadd("b", 100, 50)], "SDIFFSTORE d a b", "sdiffstore"),
 ("xaddmaxlen", [], "XADD st MAXLEN ~ 1000 * f v", "xadd"),
 ("xreadgroup", stream_with_group(), "XREADGROUP GROUP g c COUNT 10 STREAMS st 0", "xreadgroup"),
 ("xpending", stream_with_group(), "XPENDING st g - + 10", "xpending"),
 ("xpendsum", stream_with_group(), "XPENDING st g", "xpending"),
 ("xinfo", stream_with_group(), "XINFO STREAM st", "xinfo|stream"),
 ("xack", stream_with_group(), "XACK st g 1-__rand_int__", "xack"),
 ("xclaim", stream_with_group(), "XCLAIM st g c2 0 1-5 1-6 1-7", "xclaim"),
 ("xautoclaim", stream_with_group(), "XAUTOCLAIM st g c2 0 0 COUNT 10", "xautoclaim"),
 ("xtrim", ["XADD st 1-%d f v" % i for i in range(1, 200)], "XTRIM st MAXLEN 1000", "xtrim"),
 ("evalsha", ["SCRIPT LOAD \"return 1\""], "EVALSHA " + hashlib.sha1(b"return 1").hexdigest() + " 0", "evalsha"),
 ("evalget", [mset(R)], "EVAL \"return redis.call('GET', KEYS[1])\" 1 key:__rand_int__", "eval"),
 ("fcall", ["FUNCTION LOAD \"#!lua name=lib\\nredis.register_function('f', function(keys, args) return 1 end)\""], "FCALL f 0", "fcall"),
 ("publish", [], "PUBLISH ch hello", "publish"),
 ("sortby", [rpush("l", 100)] + ["MSET " + " ".join("w_v%d %d" % (i, (i * 37) % 101) for i in range(100))], "SORT l BY w_* GET # LIMIT 0 10", "sort"),
 ("persist", [mset(R)], "PERSIST key:__rand_int__", "persist"),
 ("touch", [mset(R)], "TOUCH key:__rand_int__", "touch"),
 ("dump", [hset("h", 100)], "DUMP h", "dump"),
 ("lcs", ["SET a " + "ab" * 50, "SET b " + "ba" * 50], "LCS a b", "lcs"),
 ("setget", [mset(R)], "SET key:__rand_int__ v GET", "set"),
 ("pfcount1", ["PFADD h1 " + " ".join("a%d" % i for i in range(2000))], "PFCOUNT h1", "pfcount"),
 ("infokeys", [mset(R)], "INFO keyspace", "info"),
 ("expiretime", [mset(R)], "EXPIRETIME key:__rand_int__", "expiretime"),
 ("mset10", [], "MSET " + " ".join("k%d:__rand_int__ v" % i for i in range(10)), "mset"),
]
def cli(port, *args, stdin=None):
    return subprocess.run(["redis-cli", "-p", str(port)] + list(args), input=stdin, capture_output=True, text=True).stdout
def stat(port, name):
    out = cli(port, "INFO", "commandstats")
    m = re.search(r"cmdstat_%s:calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)" % re.escape(name), out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
def run(port, case, n=200000):
    name, setup, cmd, sname = case
    cli(port, "FLUSHALL")
    if setup: cli(port, stdin="\n".join(setup) + "\n")
    cli(port, "CONFIG", "RESETSTAT")
    args = ["redis-benchmark", "-p", str(port), "-c", "50", "-P", "16", "-n", str(n), "-r", str(R), "--csv"] + shlex.split(cmd)
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=300).stdout
    except subprocess.TimeoutExpired:
        # redis-benchmark now and then spins for ever without sending (seen a few times here): once more
        cli(port, "CONFIG", "RESETSTAT")
        out = subprocess.run(args, capture_output=True, text=True, timeout=300).stdout
    rps = float(next(csv.reader([out.strip().splitlines()[-1]]))[1])  # (a command's text may hold commas)
    calls, usec = stat(port, sname)
    return rps, (usec / calls if calls else float("nan"))
res = {}
cases = [c for c in CASES if not flt or re.search(flt, c[0])]
for c in cases: run(sp, c, 100000)  # JIT warm-up
for r in range(rounds):
    for port, who in ((sp, "s"), (rp, "r")) if r % 2 == 0 else ((rp, "r"), (sp, "s")):
        for c in cases:
            res.setdefault((c[0], who), []).append(run(port, c))
print("%-14s %10s %10s %6s   %8s %8s %6s" % ("case", "spinel/s", "redis/s", "ratio", "sp us", "rd us", "cost"))
for c in cases:
    s = res[(c[0], "s")]; r = res[(c[0], "r")]
    srps = statistics.median(x[0] for x in s); rrps = statistics.median(x[0] for x in r)
    sus = statistics.median(x[1] for x in s); rus = statistics.median(x[1] for x in r)
    flag = " <<" if srps < rrps or sus > rus * 1.1 else ""
    print("%-14s %10.0f %10.0f %6.2f   %8.3f %8.3f %6.2f%s" % (c[0], srps, rrps, srps / rrps, sus, rus, sus / rus if rus else float('nan'), flag))
