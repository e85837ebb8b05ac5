/*
 * metrics.h - the reporter's counters, in Prometheus' text format
 *
 * The counters live in the reporter's database ("m/NAME", store.h),
 * written in the same transaction as what they count, so they survive
 * restarts and never disagree with the counts.  metrics_print() prints
 * them (postsmtpsts-tlsrpt --stats): postsmtpsts_tlsrpt_NAME_total for
 * each, and postsmtpsts_tlsrpt_reports{status} for the reports by state.
 * metrics_write() writes the same to tlsrpt.metrics_file (a textfile for
 * node_exporter's textfile collector), replacing it atomically; no-op
 * without that option.
 */
#ifndef TLSRPT_METRICS_H
#define TLSRPT_METRICS_H

#include <stdio.h>

struct config;
struct store;
struct count;
struct send;

/* metrics_print - open the database read-only and print: 0, or 1 */
int	metrics_print(const struct config *cf, FILE *fp);

/* metrics_emit - print the counters of the open store s (no transaction
 * open) to fp: 0 or -1 */
int	metrics_emit(struct store *s, FILE *fp);

/* metrics_write - metrics_emit() into tlsrpt.metrics_file, if set */
void	metrics_write(const struct config *cf, struct store *s,
	    const struct count *c, const struct send *sd);

#endif
