/*
 * config.c - the validated configuration: lookups, names, release
 *
 * The struct config of config.h is built by the loader, conf/config_load.c
 * (the configuration file's layer, above policy/); this file holds what
 * every layer does with one: find a map or a pinned domain, name an
 * option's value, list the fleet's addresses, free it.  No libconfuse
 * here.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "lib/config.h"

/* The syslog facilities the file may name. */
static const struct {
	const char	*name;
	int		 value;
} config_facilities[] = {
	{ "mail", LOG_MAIL },
	{ "daemon", LOG_DAEMON },
	{ "local0", LOG_LOCAL0 },
	{ "local1", LOG_LOCAL1 },
	{ "local2", LOG_LOCAL2 },
	{ "local3", LOG_LOCAL3 },
	{ "local4", LOG_LOCAL4 },
	{ "local5", LOG_LOCAL5 },
	{ "local6", LOG_LOCAL6 },
	{ "local7", LOG_LOCAL7 },
};

const struct config_fleet_server *
config_fleet_list(const struct config_fleet *fl, size_t *n, const char **what)
{
	if (what != NULL)
		*what = fl->nsentinels > 0 ? "sentinels" : "servers";
	*n = fl->nsentinels > 0 ? fl->nsentinels : fl->nservers;
	return (fl->nsentinels > 0 ? fl->sentinels : fl->servers);
}

/* config_fleet_servers_free - a fleet server list (conf/config_fleet.c) */
static void
config_fleet_servers_free(struct config_fleet_server *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(v[i].spec);
		free(v[i].path);
		free(v[i].host);
	}
	free(v);
}

/* config_free_strv - free a NULL-terminated array of strings */
static void
config_free_strv(char **v)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
config_free(struct config *cf)
{
	size_t	 i;

	if (cf == NULL)
		return;
	for (i = 0; i < cf->nlisten; i++) {
		free(cf->listen[i].spec);
		free(cf->listen[i].path);
		free(cf->listen[i].host);
		free(cf->listen[i].port);
		free(cf->listen[i].owner);
		free(cf->listen[i].group);
	}
	free(cf->listen);
	if (cf->metrics != NULL) {
		free(cf->metrics->spec);
		free(cf->metrics->host);
		free(cf->metrics->port);
		free(cf->metrics->path);	/* a refused unix: spec */
		free(cf->metrics->owner);
		free(cf->metrics->group);
		free(cf->metrics);
	}
	for (i = 0; i < cf->nmaps; i++) {
		free(cf->maps[i].name);
		free(cf->maps[i].tls_protocols);
		free(cf->maps[i].tls_ciphers);
		free(cf->maps[i].tls_exclude);
	}
	free(cf->maps);
	for (i = 0; i < cf->ndomains; i++) {
		free(cf->domains[i].domain);
		free(cf->domains[i].level);
		free(cf->domains[i].match);
		free(cf->domains[i].servername);
		free(cf->domains[i].protocols);
		free(cf->domains[i].ciphers);
		free(cf->domains[i].exclude);
		free(cf->domains[i].answer);
		free(cf->domains[i].until);
	}
	free(cf->domains);
	free(cf->user);
	free(cf->group);
	free(cf->pid_file);
	free(cf->runtime_dir);
	free(cf->dns.trust_anchor_file);
	free(cf->dns.root_hints);
	config_free_strv(cf->dns.forwarders);
	free(cf->dns.unbound_config);
	config_free_strv(cf->dns.unbound_options);
	free(cf->https.ca_file);
	free(cf->https.proxy);
	free(cf->cache.path);
	free(cf->cache.history_file);
	for (i = 0; i < cf->preload.nlists; i++) {
		free(cf->preload.lists[i].name);
		free(cf->preload.lists[i].source);
		free(cf->preload.lists[i].signature);
		free(cf->preload.lists[i].keyring);
		free(cf->preload.lists[i].fingerprint);
	}
	free(cf->preload.lists);
	free(cf->preload.path);
	free(cf->preload.keyring);
	config_fleet_servers_free(cf->fleet.servers, cf->fleet.nservers);
	config_fleet_servers_free(cf->fleet.sentinels, cf->fleet.nsentinels);
	free(cf->fleet.master_name);
	free(cf->fleet.prefix);
	free(cf->fleet.user);
	if (cf->fleet.password != NULL) {
		explicit_bzero(cf->fleet.password, strlen(cf->fleet.password));
		free(cf->fleet.password);
	}
	if (cf->fleet.key != NULL) {
		explicit_bzero(cf->fleet.key, cf->fleet.keylen);
		free(cf->fleet.key);
	}
	free(cf->fleet.key_file);
	free(cf->fleet.password_file);
	free(cf->tlsrpt.organization_name);
	free(cf->tlsrpt.contact_info);
	free(cf->tlsrpt.submitter);
	free(cf->tlsrpt.sender);
	free(cf->tlsrpt.log);
	free(cf->tlsrpt.socket);
	free(cf->tlsrpt.socket_group);
	config_free_strv(cf->tlsrpt.trusted_users);
	config_free_strv(cf->tlsrpt.trusted_commands);
	config_free_strv(cf->tlsrpt.trusted_units);
	free(cf->tlsrpt.state_dir);
	free(cf->tlsrpt.map);
	free(cf->tlsrpt.sendmail);
	free(cf->tlsrpt.sending_mta_ip);
	free(cf->tlsrpt.host_id);
	free(cf->tlsrpt.metrics_file);
	free(cf->tlsrpt.report_allow_addresses);
	free(cf->file);
	free(cf);
}

const struct config_map *
config_find_map(const struct config *cf, const char *name, size_t len)
{
	size_t	 i;

	if (cf == NULL)
		return (NULL);
	for (i = 0; i < cf->nmaps; i++)
		if (strlen(cf->maps[i].name) == len &&
		    memcmp(cf->maps[i].name, name, len) == 0)
			return (&cf->maps[i]);
	return (NULL);
}

/* config_domain_cmp - bsearch comparison: a name against a domain */
static int
config_domain_cmp(const void *key, const void *elem)
{
	const struct config_domain *d = elem;

	return (strcmp(key, d->domain));
}

const struct config_domain *
config_find_domain(const struct config *cf, const char *domain)
{
	if (cf == NULL || cf->ndomains == 0 || domain == NULL)
		return (NULL);
	return (bsearch(domain, cf->domains, cf->ndomains,
	    sizeof(cf->domains[0]), config_domain_cmp));
}

const char *
config_dane_some_name(enum config_dane_some d)
{
	switch (d) {
	case CONFIG_DANE_SOME_DANE:
		return ("dane");
	case CONFIG_DANE_SOME_DANE_ONLY:
		return ("dane-only");
	case CONFIG_DANE_SOME_IGNORE:
		return ("ignore");
	}
	return ("?");
}

const char *
config_answer_name(enum config_answer a)
{
	switch (a) {
	case CONFIG_ANSWER_NOTFOUND:
		return ("notfound");
	case CONFIG_ANSWER_TEMP:
		return ("temp");
	case CONFIG_ANSWER_MAY:
		return ("may");
	}
	return ("?");
}

const char *
config_facility_name(int facility)
{
	size_t	 i;

	for (i = 0; i < sizeof(config_facilities) /
	    sizeof(config_facilities[0]); i++)
		if (config_facilities[i].value == facility)
			return (config_facilities[i].name);
	return (NULL);
}

int
config_facility_value(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(config_facilities) /
	    sizeof(config_facilities[0]); i++)
		if (strcasecmp(name, config_facilities[i].name) == 0)
			return (config_facilities[i].value);
	return (-1);
}
