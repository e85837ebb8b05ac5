/*
 * config_dump.c - the effective configuration in the file's own syntax
 *
 * config_dump() prints every option with its value (defaults filled in),
 * in the order and spelling config_load() reads, strings quoted and
 * escaped as libconfuse unquotes them: its output loads again to the same
 * configuration (tests/fuzz/fuzz_config.c holds it to that).  It reads the
 * struct config only; no libconfuse here.
 */
#include "autoconf.h"

#include <stdio.h>

#include "conf/config_dump.h"
#include "lib/addrclass.h"
#include "lib/config.h"

/*
 * config_dump_str - s as a double-quoted libconfuse string: '"', '\\' and
 * '$' (which would start "${NAME}") escaped, control bytes as \xHH
 */
static void
config_dump_str(FILE *fp, const char *s)
{
	const unsigned char *p;

	putc('"', fp);
	for (p = (const unsigned char *)(s != NULL ? s : ""); *p != '\0';
	    p++) {
		if (*p == '"' || *p == '\\' || *p == '$')
			fprintf(fp, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(fp, "\\x%02x", *p);
		else
			putc(*p, fp);
	}
	putc('"', fp);
}

/* config_dump_kv - "indent name = "value"" */
static void
config_dump_kv(FILE *fp, const char *indent, const char *name, const char *s)
{
	fprintf(fp, "%s%s = ", indent, name);
	config_dump_str(fp, s);
	putc('\n', fp);
}

/* config_dump_list - "indent name = { "a", "b" }" */
static void
config_dump_list(FILE *fp, const char *indent, const char *name, char **v)
{
	size_t	 i;

	fprintf(fp, "%s%s = {", indent, name);
	for (i = 0; v != NULL && v[i] != NULL; i++) {
		fputs(i > 0 ? ", " : " ", fp);
		config_dump_str(fp, v[i]);
	}
	fputs(i > 0 ? " }\n" : "}\n", fp);
}

/* config_dump_preload - the preload section and its lists */
static void
config_dump_preload(const struct config *cf, FILE *fp)
{
	const struct config_preload *p = &cf->preload;
	size_t	 i;

	fputs("\npreload {\n", fp);
	config_dump_kv(fp, "\t", "path", p->path);
	config_dump_kv(fp, "\t", "keyring", p->keyring);
	fprintf(fp, "\trefresh_interval = %d\n", p->refresh_interval);
	fprintf(fp, "\ttimeout = %d\n", p->timeout);
	for (i = 0; i < p->nlists; i++) {
		fputs("\tlist ", fp);
		config_dump_str(fp, p->lists[i].name);
		fputs(" {\n", fp);
		config_dump_kv(fp, "\t\t", "source", p->lists[i].source);
		config_dump_kv(fp, "\t\t", "signature",
		    p->lists[i].signature);
		config_dump_kv(fp, "\t\t", "keyring", p->lists[i].keyring);
		config_dump_kv(fp, "\t\t", "fingerprint",
		    p->lists[i].fingerprint);
		fprintf(fp, "\t\ttrusted = %s\n", p->lists[i].trusted ?
		    "true" : "false");
		fputs("\t}\n", fp);
	}
	fputs("}\n", fp);
}

/* config_dump_tlsrpt - the tlsrpt section (postsmtpsts-tlsrpt(8)) */
static void
config_dump_tlsrpt(const struct config *cf, FILE *fp)
{
	const struct config_tlsrpt *t = &cf->tlsrpt;
	const char	*sep = " ";
	char		 net[ADDRCLASS_NET_MAX];
	size_t		 i;

	fprintf(fp, "\ntlsrpt {\n\tenable = %s\n", t->enable ? "true" :
	    "false");
	config_dump_kv(fp, "\t", "organization_name", t->organization_name);
	config_dump_kv(fp, "\t", "contact_info", t->contact_info);
	config_dump_kv(fp, "\t", "submitter", t->submitter);
	config_dump_kv(fp, "\t", "sender", t->sender);
	fprintf(fp, "\tinput = \"%s\"\n", t->input ==
	    CONFIG_TLSRPT_INPUT_SOCKET ? "socket" : "log");
	config_dump_kv(fp, "\t", "log", t->log);
	config_dump_kv(fp, "\t", "socket", t->socket);
	config_dump_kv(fp, "\t", "socket_group", t->socket_group);
	config_dump_list(fp, "\t", "trusted_users", t->trusted_users);
	config_dump_list(fp, "\t", "trusted_commands", t->trusted_commands);
	config_dump_list(fp, "\t", "trusted_units", t->trusted_units);
	config_dump_kv(fp, "\t", "state_dir", t->state_dir);
	config_dump_kv(fp, "\t", "map", t->map);
	fputs("\tpolicy_types = {", fp);
	if (t->policy_types & CONFIG_TLSRPT_STS) {
		fprintf(fp, "%s\"sts\"", sep);
		sep = ", ";
	}
	if (t->policy_types & CONFIG_TLSRPT_TLSA) {
		fprintf(fp, "%s\"tlsa\"", sep);
		sep = ", ";
	}
	if (t->policy_types & CONFIG_TLSRPT_NONE) {
		fprintf(fp, "%s\"no-policy-found\"", sep);
		sep = ", ";
	}
	fputs(sep[0] == ',' ? " }\n" : "}\n", fp);
	config_dump_kv(fp, "\t", "sendmail", t->sendmail);
	fprintf(fp, "\tsend_delay = %d\n", t->send_delay);
	fprintf(fp, "\tretry_for = %d\n", t->retry_for);
	fprintf(fp, "\tmax_report_size = %zu\n", t->max_report_size);
	fprintf(fp, "\trate_limit = %d\n", t->rate_limit);
	config_dump_kv(fp, "\t", "sending_mta_ip", t->sending_mta_ip);
	fprintf(fp, "\tkeep_days = %d\n", t->keep_days);
	config_dump_kv(fp, "\t", "host_id", t->host_id);
	fprintf(fp, "\tfleet_deadline = %d\n", t->fleet_deadline);
	config_dump_kv(fp, "\t", "metrics_file", t->metrics_file);
	fprintf(fp, "\ttimeout = %d\n", t->timeout);
	fputs("\treport_allow_addresses = {", fp);
	for (i = 0; i < t->nreport_allow_addresses; i++)
		fprintf(fp, "%s\"%s\"", i > 0 ? ", " : " ", addrclass_format(
		    &t->report_allow_addresses[i], net, sizeof(net)));
	fputs(i > 0 ? " }\n" : "}\n", fp);
	fputs("}\n", fp);
}

void
config_dump(const struct config *cf, FILE *fp)
{
	const struct config_listen *l;
	const struct config_fleet_server *sv;
	const char *facility, *what;
	char	 mode[8];
	size_t	 i, n;
	int	 ms;

	if ((facility = config_facility_name(cf->syslog_facility)) == NULL)
		facility = "?";
	fprintf(fp, "# effective configuration of %s\n", cf->file);
	config_dump_kv(fp, "", "user", cf->user);
	config_dump_kv(fp, "", "group", cf->group);
	config_dump_kv(fp, "", "pid_file", cf->pid_file);
	config_dump_kv(fp, "", "runtime_dir", cf->runtime_dir);
	fprintf(fp, "workers = %d\n", cf->workers);
	fprintf(fp, "resolvers = %d\n", cf->resolvers);
	fprintf(fp, "max_connections = %d\n", cf->max_connections);
	fprintf(fp, "idle_timeout = %d\n", cf->idle_timeout);
	fprintf(fp, "max_inflight = %d\n", cf->max_inflight);
	fprintf(fp, "max_resolutions = %d\n", cf->max_resolutions);
	ms = cf->request_timeout_ms;
	if (ms % 1000 == 0)
		fprintf(fp, "request_timeout = %d\n", ms / 1000);
	else if (ms % 100 == 0)
		fprintf(fp, "request_timeout = %d.%d\n", ms / 1000,
		    ms % 1000 / 100);
	else if (ms % 10 == 0)
		fprintf(fp, "request_timeout = %d.%02d\n", ms / 1000,
		    ms % 1000 / 10);
	else
		fprintf(fp, "request_timeout = %d.%03d\n", ms / 1000,
		    ms % 1000);
	config_dump_kv(fp, "", "deadline_answer",
	    config_answer_name(cf->deadline_answer));
	config_dump_kv(fp, "", "syslog_facility", facility);
	fprintf(fp, "verbose = %d\n", cf->verbose);
	config_dump_kv(fp, "", "metrics", cf->metrics != NULL ?
	    cf->metrics->spec : "");

	for (i = 0; i < cf->nlisten; i++) {
		l = &cf->listen[i];
		fputs("\nlisten ", fp);
		config_dump_str(fp, l->spec);
		fputs(" {\n", fp);
		if (l->kind == CONFIG_LISTEN_UNIX) {
			snprintf(mode, sizeof(mode), "%04o",
			    (unsigned int)l->mode);
			config_dump_kv(fp, "\t", "mode", mode);
			config_dump_kv(fp, "\t", "owner", l->owner);
			config_dump_kv(fp, "\t", "group", l->group);
		}
		fputs("}\n", fp);
	}
	for (i = 0; i < cf->nmaps; i++) {
		fputs("\nmap ", fp);
		config_dump_str(fp, cf->maps[i].name);
		fputs(" {\n", fp);
		config_dump_kv(fp, "\t", "testing_answer",
		    config_answer_name(cf->maps[i].testing_answer));
		fprintf(fp, "\ttlsrpt = %s\n", cf->maps[i].tlsrpt ? "true" :
		    "false");
		fprintf(fp, "\tdane = %s\n", cf->maps[i].dane ? "true" :
		    "false");
		config_dump_kv(fp, "\t", "dane_some",
		    config_dane_some_name(cf->maps[i].dane_some));
		config_dump_kv(fp, "\t", "dane_lookup_failure",
		    cf->maps[i].dane_lookup_failure ==
		    CONFIG_DANE_FAILURE_TEMP ? "temp" : "ignore");
		config_dump_kv(fp, "\t", "tls_protocols",
		    cf->maps[i].tls_protocols);
		config_dump_kv(fp, "\t", "tls_ciphers", cf->maps[i].tls_ciphers);
		config_dump_kv(fp, "\t", "tls_exclude", cf->maps[i].tls_exclude);
		fputs("}\n", fp);
	}
	for (i = 0; i < cf->ndomains; i++) {
		fputs("\n# answer: ", fp);
		fputs(cf->domains[i].answer, fp);
		fputs("\ndomain ", fp);
		config_dump_str(fp, cf->domains[i].domain);
		fputs(" {\n", fp);
		config_dump_kv(fp, "\t", "level", cf->domains[i].level);
		if (cf->domains[i].match != NULL)
			config_dump_kv(fp, "\t", "match", cf->domains[i].match);
		if (cf->domains[i].servername != NULL)
			config_dump_kv(fp, "\t", "servername",
			    cf->domains[i].servername);
		if (cf->domains[i].protocols != NULL)
			config_dump_kv(fp, "\t", "protocols",
			    cf->domains[i].protocols);
		if (cf->domains[i].ciphers != NULL)
			config_dump_kv(fp, "\t", "ciphers",
			    cf->domains[i].ciphers);
		if (cf->domains[i].exclude != NULL)
			config_dump_kv(fp, "\t", "exclude",
			    cf->domains[i].exclude);
		if (cf->domains[i].until != NULL)
			config_dump_kv(fp, "\t", "until",
			    cf->domains[i].until);
		fputs("}\n", fp);
	}

	fputs("\ndns {\n", fp);
	config_dump_kv(fp, "\t", "trust_anchor_file",
	    cf->dns.trust_anchor_file);
	config_dump_kv(fp, "\t", "root_hints", cf->dns.root_hints);
	config_dump_list(fp, "\t", "forwarders", cf->dns.forwarders);
	fprintf(fp, "\tuse_resolv_conf = %s\n", cf->dns.use_resolv_conf ?
	    "true" : "false");
	config_dump_kv(fp, "\t", "unbound_config", cf->dns.unbound_config);
	config_dump_list(fp, "\t", "unbound_options", cf->dns.unbound_options);
	fputs("}\n\nhttps {\n", fp);
	config_dump_kv(fp, "\t", "ca_file", cf->https.ca_file);
	config_dump_kv(fp, "\t", "proxy", cf->https.proxy);
	fprintf(fp, "\tconnect_timeout = %d\n", cf->https.connect_timeout);
	fprintf(fp, "\ttimeout = %d\n", cf->https.timeout);
	fprintf(fp, "\tmax_policy_size = %zu\n", cf->https.max_policy_size);
	fputs("}\n\ncache {\n", fp);
	config_dump_kv(fp, "\t", "path", cf->cache.path);
	fprintf(fp, "\tmax_size = %zu\n", cf->cache.max_size);
	fprintf(fp, "\tnegative_ttl = %d\n", cf->cache.negative_ttl);
	fprintf(fp, "\trefresh_before = %d\n", cf->cache.refresh_before);
	fprintf(fp, "\trefresh_interval = %d\n", cf->cache.refresh_interval);
	fprintf(fp, "\trefresh_concurrency = %d\n",
	    cf->cache.refresh_concurrency);
	fprintf(fp, "\tenabled = %s\n", cf->cache.enabled ? "true" : "false");
	config_dump_kv(fp, "\t", "history_file", cf->cache.history_file !=
	    NULL ? cf->cache.history_file : "none");
	fputs("}\n", fp);
	config_dump_tlsrpt(cf, fp);
	config_dump_preload(cf, fp);
	if (!cf->fleet.enabled)
		return;
	sv = config_fleet_list(&cf->fleet, &n, &what);
	fprintf(fp, "\nfleet {\n\t%s = {", what);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", fp);
		config_dump_str(fp, sv[i].spec);
	}
	fputs("}\n", fp);
	if (cf->fleet.master_name != NULL)
		config_dump_kv(fp, "\t", "master_name",
		    cf->fleet.master_name);
	config_dump_kv(fp, "\t", "mode", cf->fleet.mode ==
	    CONFIG_FLEET_READ_ONLY ? "read-only" : "read-write");
	config_dump_kv(fp, "\t", "prefix", cf->fleet.prefix);
	fprintf(fp, "\ttimeout = %d.%03d\n", cf->fleet.timeout_ms / 1000,
	    cf->fleet.timeout_ms % 1000);
	fprintf(fp, "\tconnect_timeout = %d.%03d\n",
	    cf->fleet.connect_timeout_ms / 1000,
	    cf->fleet.connect_timeout_ms % 1000);
	fprintf(fp, "\tlease = %d\n", cf->fleet.lease);
	fprintf(fp, "\tlease_wait = %d.%03d\n", cf->fleet.lease_wait_ms / 1000,
	    cf->fleet.lease_wait_ms % 1000);
	fprintf(fp, "\tgrace = %d\n", cf->fleet.grace);
	config_dump_kv(fp, "\t", "user", cf->fleet.user);
	config_dump_kv(fp, "\t", "password_file", cf->fleet.password_file);
	config_dump_kv(fp, "\t", "key_file", cf->fleet.key_file);
	fputs("}\n", fp);
}
