/*
 * tool_json.c - the JSON the operator programs print (see tool_json.h)
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "policy/discover.h"
#include "policy/pins.h"
#include "policy/requiretls.h"
#include "policy/sts_policy.h"
#include "tools/tool.h"
#include "tools/tool_json.h"

int
tool_json_print(const struct tool *t, struct buf *b)
{
	int	 rc = 0;

	if (b->error || buf_cstr(b) == NULL) {
		fprintf(stderr, "%s: JSON output too large\n", t->name);
		rc = -1;
	} else
		printf("%s\n", b->data);
	buf_free(b);
	return (rc);
}

void
tool_json_bool(struct buf *b, const char *key, int v)
{
	buf_json_key(b, key);
	buf_append_str(b, v ? "true" : "false");
}

void
tool_json_outcome(struct buf *b, enum discover_outcome o,
    enum discover_failure f)
{
	buf_json_key(b, "outcome");
	buf_json_cstr(b, discover_outcome_name(o));
	buf_json_key(b, "failure");
	buf_json_cstr(b, o == DISCOVER_FAILURE ? discover_failure_name(f) :
	    NULL);
}

void
tool_json_pin(struct buf *b, enum pins_state ps, const struct config_domain *d)
{
	char	 t[PINS_UNTIL_BUFSZ];

	buf_json_key(b, "pin");
	if (ps == PINS_NONE || d == NULL) {
		buf_append_str(b, "null");
		return;
	}
	buf_append_char(b, '{');
	buf_json_key(b, "state");
	buf_json_cstr(b, ps == PINS_LAPSED ? "lapsed" : "in-force");
	buf_json_key(b, "answer");
	buf_json_cstr(b, d->answer);
	buf_json_key(b, "until");
	buf_json_cstr(b, d->until);
	buf_json_key(b, "ends");
	buf_json_cstr(b, d->end != 0 ? pins_until_format(d->end, t) : NULL);
	buf_append_char(b, '}');
}

void
tool_json_mx(struct buf *b, const struct sts_policy *p)
{
	const char	*mx;
	size_t		 i;

	if (p == NULL) {
		buf_append_str(b, "null");
		return;
	}
	buf_append_char(b, '[');
	for (i = 0; (mx = sts_policy_mx_next(p, &i, NULL)) != NULL; ) {
		if (mx != p->mx)
			buf_append_char(b, ',');
		buf_json_cstr(b, mx);
	}
	buf_append_char(b, ']');
}

void
tool_json_requiretls(struct buf *b, const char *reply)
{
	enum requiretls_level l;
	enum requiretls_verdict v;
	const char	*why;

	l = requiretls_level_of_reply(reply, strlen(reply));
	v = requiretls_verdict(l, &why);
	buf_json_key(b, "requiretls");
	buf_append_char(b, '{');
	buf_json_key(b, "deliverable");
	buf_json_cstr(b, requiretls_verdict_name(v));
	buf_json_key(b, "level");
	buf_json_cstr(b, requiretls_level_name(l));
	buf_json_key(b, "reason");
	buf_json_cstr(b, why);
	buf_append_char(b, '}');
}
