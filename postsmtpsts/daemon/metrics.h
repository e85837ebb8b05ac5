/*
 * metrics.h - the Prometheus metrics listener and its process
 *
 * Optional (configuration "metrics = "inet:ADDRESS:PORT"", off by
 * default).  The master binds the socket before dropping privileges and
 * forks one small process that serves it with its own event loop, apart
 * from the socketmap workers and the resolver: a slow or hostile scraper
 * can cost nothing but this process.  It answers GET (and HEAD) /metrics
 * with the counters of stats.h in the Prometheus text format, anything
 * else with 404, 405 or 400, one request per connection.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stddef.h>

struct config;
struct config_listen;

#define METRICS_PATH		"/metrics"
#define METRICS_MAX_REQUEST	4096	/* request line + headers */
#define METRICS_MAX_CONNS	16	/* more are closed at once */
#define METRICS_TIMEOUT_SECS	10	/* a whole exchange */
#define METRICS_BACKLOG		64
#define METRICS_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/*
 * metrics_http_parse - judge a request head p[0..len) (not NUL-terminated)
 *
 * Returns 0 while the head is incomplete (no empty line yet), else the
 * status to answer: 200 (GET or HEAD of METRICS_PATH, a query string
 * allowed), 404 (another path), 405 (another method), 400 (not an
 * HTTP/1.0 or HTTP/1.1 request line).  *head is set to 1 for a HEAD
 * request (200 or 404): its reply has no body.
 */
int	metrics_http_parse(const char *p, size_t len, int *head);

/* metrics_listen - bind and listen on l (inet); fatal on failure */
int	metrics_listen(const struct config_listen *l);

/*
 * metrics_main - serve the listening socket fd until SIGTERM/SIGINT, with
 * the counters of the stats mapping inherited from the master.  Returns
 * the exit status.
 */
int	metrics_main(const struct config *cf, int fd);

#endif
