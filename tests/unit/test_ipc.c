/*
 * test_ipc.c - worker <-> resolver message codec, and the resolver
 * socket's address
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "lib/config.h"
#include "lib/ipc.h"

static void
request_round_trip(void **state)
{
	struct ipc_request req, got;
	unsigned char	 msg[IPC_MAX_MSG];
	long		 n;

	(void)state;
	memset(&req, 0, sizeof(req));
	strcpy(req.domain, "example.com");
	req.domain_len = 11;
	req.flags = IPC_FLAG_REFRESH;
	n = ipc_request_encode(&req, msg, sizeof(msg));
	assert_int_equal(n, 4 + 11);
	assert_int_equal(ipc_request_decode(msg, (size_t)n, &got), 0);
	assert_string_equal(got.domain, "example.com");
	assert_int_equal(got.domain_len, 11);
	assert_int_equal(got.flags, IPC_FLAG_REFRESH);
}

static void
request_rejects_bad_input(void **state)
{
	struct ipc_request req, got;
	unsigned char	 msg[IPC_MAX_MSG];
	long		 n;
	size_t		 cut;

	(void)state;
	memset(&req, 0, sizeof(req));
	strcpy(req.domain, "a.example");
	req.domain_len = 9;
	n = ipc_request_encode(&req, msg, sizeof(msg));
	assert_true(n > 0);
	for (cut = 0; cut < (size_t)n; cut++)
		assert_int_equal(ipc_request_decode(msg, cut, &got), -1);
	msg[n] = 'x';	/* trailing byte */
	assert_int_equal(ipc_request_decode(msg, (size_t)n + 1, &got), -1);
	msg[1] = IPC_VERSION + 1;
	assert_int_equal(ipc_request_decode(msg, (size_t)n, &got), -1);
	msg[1] = IPC_VERSION;
	msg[0] = 'R';
	assert_int_equal(ipc_request_decode(msg, (size_t)n, &got), -1);
	msg[0] = 'Q';
	msg[5] = ' ';	/* space inside the domain */
	assert_int_equal(ipc_request_decode(msg, (size_t)n, &got), -1);
	req.domain_len = 0;
	assert_int_equal(ipc_request_encode(&req, msg, sizeof(msg)), -1);
	req.domain_len = 9;
	assert_int_equal(ipc_request_encode(&req, msg, 5), -1);
}

static void
reply_round_trip(void **state)
{
	struct ipc_reply rep, got;
	unsigned char	 msg[IPC_MAX_MSG], rec[300], drec[40];
	long		 n;

	(void)state;
	memset(rec, 0xa5, sizeof(rec));
	memset(drec, 0x5a, sizeof(drec));
	memset(&rep, 0, sizeof(rep));
	strcpy(rep.domain, "mail.example");
	rep.domain_len = 12;
	rep.status = IPC_STATUS_OK;
	rep.record = rec;
	rep.record_len = sizeof(rec);
	rep.dane = drec;
	rep.dane_len = sizeof(drec);
	n = ipc_reply_encode(&rep, msg, sizeof(msg));
	assert_int_equal(n, 4 + 12 + 4 + 300 + 4 + 40);
	assert_int_equal(ipc_reply_decode(msg, (size_t)n, &got), 0);
	assert_string_equal(got.domain, "mail.example");
	assert_int_equal(got.record_len, 300);
	assert_memory_equal(got.record, rec, 300);
	assert_int_equal(got.dane_len, 40);
	assert_memory_equal(got.dane, drec, 40);
	/* a record length that disagrees with the message size */
	assert_int_equal(ipc_reply_decode(msg, (size_t)n - 1, &got), -1);
	assert_int_equal(ipc_reply_decode(msg, (size_t)n + 1, &got), -1);
	msg[4 + 12] = 0x2d;	/* 301 */
	assert_int_equal(ipc_reply_decode(msg, (size_t)n, &got), -1);
	msg[4 + 12] = 0x2c;	/* back to 300; the DANE length 41 */
	msg[4 + 12 + 4 + 300] = 41;
	assert_int_equal(ipc_reply_decode(msg, (size_t)n, &got), -1);
}

static void
reply_limits(void **state)
{
	struct ipc_reply rep, got;
	unsigned char	 msg[64];
	long		 n;

	(void)state;
	memset(&rep, 0, sizeof(rep));
	strcpy(rep.domain, "x.example");
	rep.domain_len = 9;
	rep.status = IPC_STATUS_TEMP;
	n = ipc_reply_encode(&rep, msg, sizeof(msg));
	assert_int_equal(n, 4 + 9 + 4 + 4);
	assert_int_equal(ipc_reply_decode(msg, (size_t)n, &got), 0);
	assert_null(got.record);
	assert_null(got.dane);
	assert_int_equal(got.status, IPC_STATUS_TEMP);
	msg[2] = 7;	/* unknown status */
	assert_int_equal(ipc_reply_decode(msg, (size_t)n, &got), -1);
	rep.record_len = IPC_MAX_RECORD + 1;
	assert_int_equal(ipc_reply_encode(&rep, msg, sizeof(msg)), -1);
	rep.record_len = 0;
	rep.dane_len = IPC_MAX_RECORD + 1;
	assert_int_equal(ipc_reply_encode(&rep, msg, sizeof(msg)), -1);
}

/* the socket path is runtime_dir/resolver.sock, or nothing when it would
 * not fit in sun_path (108 bytes with the NUL) */
static void
resolver_addr_fits_or_fails(void **state)
{
	struct sockaddr_un sun;
	char		 dir[200];

	(void)state;
	assert_int_equal(ipc_resolver_addr("/run/postsmtpsts", 0, &sun), 0);
	assert_int_equal(sun.sun_family, AF_UNIX);
	assert_string_equal(sun.sun_path, "/run/postsmtpsts/resolver.sock");
	assert_int_equal(ipc_resolver_addr("/run/postsmtpsts", 1, &sun), 0);
	assert_string_equal(sun.sun_path, "/run/postsmtpsts/resolver.1.sock");
	assert_int_equal(ipc_resolver_addr("/run/postsmtpsts", 15, &sun), 0);
	assert_string_equal(sun.sun_path,
	    "/run/postsmtpsts/resolver.15.sock");
	assert_int_equal(ipc_resolver_addr("/run/postsmtpsts", -1, &sun), -1);
	/* 94 + "/resolver.sock" (14) = 108: one byte too many for the NUL */
	memset(dir, 'd', 94);
	dir[0] = '/';
	dir[94] = '\0';
	assert_int_equal(ipc_resolver_addr(dir, 0, &sun), -1);
	dir[93] = '\0';		/* 107 bytes: fits */
	assert_int_equal(ipc_resolver_addr(dir, 0, &sun), 0);
	assert_int_equal(strlen(sun.sun_path), 107);
	/* the longest runtime_dir the configuration takes fits every shard */
	dir[CONFIG_MAX_RUNTIME_DIR] = '\0';
	assert_int_equal(ipc_resolver_addr(dir, CONFIG_MAX_RESOLVERS - 1,
	    &sun), 0);
}

/* every domain has one shard, in range, the same each time; a domain's
 * shard does not depend on anything but its name and the count; the
 * shards of many names are all used, about evenly */
static void
shard_is_stable_and_spread(void **state)
{
	char		 d[64];
	int		 count[4] = { 0 }, n, i, k;

	(void)state;
	assert_int_equal(ipc_shard("example.com", 11, 1), 0);
	assert_int_equal(ipc_shard("example.com", 11, 0), 0);
	for (i = 0; i < 4000; i++) {
		n = snprintf(d, sizeof(d), "b%d.bulk.pstest", i);
		k = ipc_shard(d, (size_t)n, 4);
		assert_true(k >= 0 && k < 4);
		assert_int_equal(ipc_shard(d, (size_t)n, 4), k);
		count[k]++;
		k = ipc_shard(d, (size_t)n, CONFIG_MAX_RESOLVERS);
		assert_true(k >= 0 && k < CONFIG_MAX_RESOLVERS);
	}
	for (k = 0; k < 4; k++)		/* 1000 each expected */
		assert_in_range(count[k], 850, 1150);
	/* a fixed point, so that a changed hash (a shard moving between
	 * releases: its domains' single flight and refresh would move)
	 * is a conscious decision */
	assert_int_equal(ipc_shard("example.com", 11, 4), 1);
	assert_int_equal(ipc_shard("gmail.com", 9, 3), 1);
	assert_int_equal(ipc_shard("b1.bulk.pstest", 14, 2), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_round_trip),
		cmocka_unit_test(shard_is_stable_and_spread),
		cmocka_unit_test(request_rejects_bad_input),
		cmocka_unit_test(reply_round_trip),
		cmocka_unit_test(reply_limits),
		cmocka_unit_test(resolver_addr_fits_or_fails),
	};

	return (cmocka_run_group_tests_name("ipc", tests, NULL, NULL));
}
