#!/usr/bin/python3
"""peer_cache.py - fill a cache of Debian's postfix-mta-sts-resolver with
its own code, for tests/e2e/cache-import.sh.

  peer_cache.py sqlite FILE NOW [N]   the SQLite backend (sqlite_cache)
  peer_cache.py redis URL NOW [N]     the Redis backend (redis_cache)

Writes the entries of ENTRIES (times relative to NOW, Unix seconds), then
N more enforce policies bulkNNNN.example (default 0), through the backend's
own set(), the call its responder makes after a lookup.  The policies are
parsed by the peer's own parse_mta_sts_policy and checked as its
STSResolver.resolve checks a fetched policy (version, max_age an int in
0..31557600, mode, mx unless mode none), so every row is one the daemon
could have written.  Some are valid for the peer but not for RFC 8461
(an id with punctuation, an IP address as mx pattern): the peer checks
neither.

Run with Debian's python3 (the package's modules live in its
dist-packages).  Debian 12 ships python3-aioredis 1.3.1, while the peer's
redis_cache is written for aioredis 2 (aioredis.from_url): its Redis
backend fails to start on Debian 12 as packaged.  aioredis 2 became
redis.asyncio of redis-py (python3-redis 4.3), with the same API, so this
script puts that module in aioredis's place and runs the peer's
RedisCache unchanged.
"""
import asyncio
import sys

ENTRIES = [
    # domain, ts relative to NOW, id, policy text
    ("enforce.example", -3600, "enf1",
     "version: STSv1\nmode: enforce\nmx: mx1.enforce.example\n"
     "mx: *.mail.enforce.example\nmax_age: 86400\n"),
    ("testing.example", -60, "test1",
     "version: STSv1\r\nmode: testing\r\nmx: mx.testing.example\r\n"
     "max_age: 604800\r\nx-note: caf\u00e9\r\n"),
    ("none.example", -120, "none1",
     "version: STSv1\nmode: none\nmax_age: 86400\n"),
    ("expired.example", -90000, "old1",
     "version: STSv1\nmode: enforce\nmx: mx.expired.example\n"
     "max_age: 86400\n"),
    ("badid.example", -60, "2024-01.01!",
     "version: STSv1\nmode: enforce\nmx: mx.badid.example\n"
     "max_age: 86400\n"),
    ("ipmx.example", -60, "ip1",
     "version: STSv1\nmode: enforce\nmx: 192.0.2.25\nmax_age: 86400\n"),
]


def policy(text):
    """The peer's parse and its resolver's checks of a fetched policy."""
    from postfix_mta_sts_resolver.utils import parse_mta_sts_policy
    pol = parse_mta_sts_policy(text)
    assert pol.get("version") == "STSv1"
    pol["max_age"] = int(pol.get("max_age", "-1"))
    assert 0 <= pol["max_age"] <= 31557600
    assert pol["mode"] in ("none", "testing", "enforce")
    assert pol["mode"] == "none" or pol["mx"]
    return pol


async def fill(cache, now, n):
    from postfix_mta_sts_resolver.base_cache import CacheEntry
    await cache.setup()
    try:
        for domain, rel, pol_id, text in ENTRIES:
            await cache.set(domain, CacheEntry(now + rel, pol_id,
                                               policy(text)))
        for i in range(n):
            d = "bulk%04d.example" % i
            await cache.set(d, CacheEntry(now - 60, "b%d" % i, policy(
                "version: STSv1\nmode: enforce\nmx: mx.%s\n"
                "max_age: 86400\n" % d)))
    finally:
        await cache.teardown()


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("sqlite", "redis"):
        sys.exit(__doc__)
    kind, where, now = sys.argv[1], sys.argv[2], float(sys.argv[3])
    n = int(sys.argv[4]) if len(sys.argv) == 5 else 0
    if kind == "sqlite":
        from postfix_mta_sts_resolver import sqlite_cache
        cache = sqlite_cache.SqliteCache(where)
        now = int(now)
    else:
        import redis.asyncio
        sys.modules["aioredis"] = redis.asyncio
        from postfix_mta_sts_resolver import redis_cache
        cache = redis_cache.RedisCache(url=where)
    asyncio.run(fill(cache, now, n))


if __name__ == "__main__":
    main()
