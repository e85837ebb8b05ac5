/*
 * https_names.c - the names of https.h's error kinds, and the media type
 * check of a policy response
 *
 * Interface (https.h): https_error_name(), https_media_type_ok() (RFC
 * 8461 §3.3: text/plain, RFC 7231 §3.1.1.1 parameters allowed).  Pure, no
 * I/O.  They live apart from https.c so that a test which links
 * tests/fake/fake_https.c instead of https.c (link-time substitution of
 * the I/O: the linker must never need https.o) still uses the real ones.
 */
#include "autoconf.h"

#include <stddef.h>
#include <strings.h>

#include "lib/https.h"

const char *
https_error_name(enum https_error e)
{
	switch (e) {
	case HTTPS_OK:
		return ("ok");
	case HTTPS_ERR_CONNECT:
		return ("connect");
	case HTTPS_ERR_TLS:
		return ("tls");
	case HTTPS_ERR_WEBPKI:
		return ("webpki");
	case HTTPS_ERR_TIMEOUT:
		return ("timeout");
	case HTTPS_ERR_HTTP_STATUS:
		return ("http-status");
	case HTTPS_ERR_REDIRECT:
		return ("redirect");
	case HTTPS_ERR_CONTENT_TYPE:
		return ("content-type");
	case HTTPS_ERR_TOO_LARGE:
		return ("too-large");
	case HTTPS_ERR_ADDRESS:
		return ("address");
	case HTTPS_ERR_OTHER:
		break;
	}
	return ("other");
}

int
https_media_type_ok(const char *p, size_t len)
{
	static const char want[] = "text/plain";
	size_t	 i = 0, wl = sizeof(want) - 1;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (len - i < wl || strncasecmp(p + i, want, wl) != 0)
		return (0);
	i += wl;
	/* RFC 7231 §3.1.1.1: media-type = type "/" subtype *(OWS ";" ...) */
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return (i == len || p[i] == ';');
}
