/* Linked into the static gstrace only (src/gstrace/meson.build): the GnuTLS
 * functions libmicrohttpd.a calls, so that the agent's HTTP server links
 * without libgnutls.a. That archive cannot be linked here: it needs
 * p11-kit, which Debian ships as a shared library only (and libunistring,
 * whose archive is in a package of its own). It would also bring gnutls,
 * nettle, hogweed and gmp, some 2 MB, to a binary of under 3.
 *
 * So the static gstrace serves plain HTTP only (docs/cli.md, "The static
 * binary"): srv_http_new (src/serve/http_server.c) sees srv_static_no_tls
 * below and refuses --serve-tls-cert/--serve-tls-key, naming the dynamic
 * build, before libmicrohttpd would get here. What libmicrohttpd calls
 * without TLS: gnutls_global_init from its constructor (at every start
 * of the binary) and gnutls_global_deinit from its destructor, which do
 * nothing here. Every other function is reached only by a daemon started
 * with MHD_USE_TLS; each fails as GnuTLS fails for a feature it lacks
 * (GNUTLS_E_UNIMPLEMENTED_FEATURE), so a TLS daemon would not start.
 * Built without LTO: the callers are libmicrohttpd.a's machine code. */
#include <stdlib.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>

/* Read by src/serve/http_server.c as a weak symbol: this binary has no TLS. */
extern const char srv_static_no_tls[];
const char srv_static_no_tls[] = "the static gstrace has no TLS (its GnuTLS needs p11-kit, "
				 "which Debian ships only as a shared library)";

#define NO_TLS GNUTLS_E_UNIMPLEMENTED_FEATURE

gnutls_alloc_function gnutls_malloc = malloc;

int gnutls_global_init(void)
{
	return 0;
}

void gnutls_global_deinit(void)
{
}

const char *gnutls_strerror(int error)
{
	(void)error;
	return srv_static_no_tls;
}

int gnutls_priority_init(gnutls_priority_t *priority_cache, const char *priorities,
			 const char **err_pos)
{
	(void)priorities;
	*priority_cache = NULL;
	if (err_pos)
		*err_pos = NULL;
	return NO_TLS;
}

void gnutls_priority_deinit(gnutls_priority_t priority_cache)
{
	(void)priority_cache;
}

int gnutls_certificate_allocate_credentials(gnutls_certificate_credentials_t *res)
{
	*res = NULL;
	return NO_TLS;
}

void gnutls_certificate_free_credentials(gnutls_certificate_credentials_t sc)
{
	(void)sc;
}

int gnutls_certificate_set_x509_key_mem(gnutls_certificate_credentials_t res,
					const gnutls_datum_t *cert, const gnutls_datum_t *key,
					gnutls_x509_crt_fmt_t type)
{
	(void)res, (void)cert, (void)key, (void)type;
	return NO_TLS;
}

int gnutls_certificate_set_x509_key_mem2(gnutls_certificate_credentials_t res,
					 const gnutls_datum_t *cert, const gnutls_datum_t *key,
					 gnutls_x509_crt_fmt_t type, const char *pass,
					 unsigned int flags)
{
	(void)res, (void)cert, (void)key, (void)type, (void)pass, (void)flags;
	return NO_TLS;
}

int gnutls_certificate_set_x509_trust_mem(gnutls_certificate_credentials_t res,
					  const gnutls_datum_t *ca, gnutls_x509_crt_fmt_t type)
{
	(void)res, (void)ca, (void)type;
	return NO_TLS;
}

void gnutls_certificate_set_dh_params(gnutls_certificate_credentials_t res,
				      gnutls_dh_params_t dh_params)
{
	(void)res, (void)dh_params;
}

void gnutls_certificate_set_retrieve_function2(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function2 *func)
{
	(void)cred, (void)func;
}

void gnutls_certificate_set_retrieve_function3(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function3 *func)
{
	(void)cred, (void)func;
}

void gnutls_certificate_server_set_request(gnutls_session_t session,
					   gnutls_certificate_request_t req)
{
	(void)session, (void)req;
}

int gnutls_dh_params_init(gnutls_dh_params_t *dh_params)
{
	*dh_params = NULL;
	return NO_TLS;
}

int gnutls_dh_params_import_pkcs3(gnutls_dh_params_t params, const gnutls_datum_t *pkcs3_params,
				  gnutls_x509_crt_fmt_t format)
{
	(void)params, (void)pkcs3_params, (void)format;
	return NO_TLS;
}

void gnutls_dh_params_deinit(gnutls_dh_params_t dh_params)
{
	(void)dh_params;
}

int gnutls_psk_allocate_server_credentials(gnutls_psk_server_credentials_t *sc)
{
	*sc = NULL;
	return NO_TLS;
}

void gnutls_psk_free_server_credentials(gnutls_psk_server_credentials_t sc)
{
	(void)sc;
}

void gnutls_psk_set_server_credentials_function(gnutls_psk_server_credentials_t cred,
						gnutls_psk_server_credentials_function *func)
{
	(void)cred, (void)func;
}

int gnutls_init(gnutls_session_t *session, unsigned int flags)
{
	(void)flags;
	*session = NULL;
	return NO_TLS;
}

void gnutls_deinit(gnutls_session_t session)
{
	(void)session;
}

int gnutls_priority_set(gnutls_session_t session, gnutls_priority_t priority)
{
	(void)session, (void)priority;
	return NO_TLS;
}

int gnutls_credentials_set(gnutls_session_t session, gnutls_credentials_type_t type, void *cred)
{
	(void)session, (void)type, (void)cred;
	return NO_TLS;
}

int gnutls_alpn_set_protocols(gnutls_session_t session, const gnutls_datum_t *protocols,
			      unsigned protocols_size, unsigned flags)
{
	(void)session, (void)protocols, (void)protocols_size, (void)flags;
	return NO_TLS;
}

void gnutls_transport_set_int2(gnutls_session_t session, int r, int s)
{
	(void)session, (void)r, (void)s;
}

void gnutls_session_set_ptr(gnutls_session_t session, void *ptr)
{
	(void)session, (void)ptr;
}

void *gnutls_session_get_ptr(gnutls_session_t session)
{
	(void)session;
	return NULL;
}

int gnutls_handshake(gnutls_session_t session)
{
	(void)session;
	return NO_TLS;
}

int gnutls_bye(gnutls_session_t session, gnutls_close_request_t how)
{
	(void)session, (void)how;
	return NO_TLS;
}

ssize_t gnutls_record_recv(gnutls_session_t session, void *data, size_t data_size)
{
	(void)session, (void)data, (void)data_size;
	return NO_TLS;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data, size_t data_size)
{
	(void)session, (void)data, (void)data_size;
	return NO_TLS;
}

size_t gnutls_record_check_pending(gnutls_session_t session)
{
	(void)session;
	return 0;
}

int gnutls_record_get_direction(gnutls_session_t session)
{
	(void)session;
	return 0;
}

gnutls_cipher_algorithm_t gnutls_cipher_get(gnutls_session_t session)
{
	(void)session;
	return GNUTLS_CIPHER_UNKNOWN;
}

gnutls_protocol_t gnutls_protocol_get_version(gnutls_session_t session)
{
	(void)session;
	return GNUTLS_VERSION_UNKNOWN;
}
