// A real OAuth 2.1 authorization server for the end-to-end tests: panva's oidc-provider
// (a certified OpenID provider), configured for machine clients only.
//
//   node server.mjs --port PORT --jwks FILE
//   (or TOOLSPEC_AUTHZ_PORT / TOOLSPEC_AUTHZ_JWKS)
//
// Issuer: exactly `http://127.0.0.1:PORT` (no trailing slash). Its metadata (one document)
// at both /.well-known/oauth-authorization-server (RFC 8414) and
// /.well-known/openid-configuration, keys at /jwks, tokens at /token, introspection at
// /token/introspection.
//
// Grant: client_credentials with a resource indicator (RFC 8707) naming an MCP endpoint on
// loopback (`http://127.0.0.1:<any port>/mcp`); the answer is a JWT access token (RFC 9068,
// `typ: at+jwt`) whose `aud` is that resource. Signing keys: the private JWKS in FILE; the
// first key of an algorithm signs, every key is published, so a rotation is a restart with
// a new key put first and the old one kept (keys.mjs writes such files).
//
// GET /_test/jwks-fetches counts the requests for the keys.
//
// Once listening it prints `ready http://127.0.0.1:PORT` on stdout. Token requests are
// logged to stderr (client, scopes, resource), never the token.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

import Provider, { errors } from 'oidc-provider';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.TOOLSPEC_AUTHZ_PORT },
    jwks: { type: 'string', default: process.env.TOOLSPEC_AUTHZ_JWKS },
  },
});
if (!args.port || !args.jwks) {
  console.error('usage: node server.mjs --port PORT --jwks FILE');
  process.exit(2);
}
const port = Number(args.port);
const issuer = `http://127.0.0.1:${port}`;
const jwks = JSON.parse(readFileSync(args.jwks, 'utf8'));

const SCOPES = ['tickets:read', 'tickets:write'];

// Who may have which scope, and which algorithm signs their tokens. The policy lives here,
// not in the clients' `scope` metadata: with that, oidc-provider refuses a whole request
// that names one scope too many, while OAuth lets the server grant less than was asked
// (RFC 6749 §3.3). That matters because the MCP client asks for the resource's whole
// `scopes_supported` on its first 401, whatever its own rights.
const CLIENTS = {
  reader: { secret: 'reader-secret', scopes: ['tickets:read'], alg: 'RS256' },
  reader2: { secret: 'reader2-secret', scopes: ['tickets:read'], alg: 'RS256' },
  writer: { secret: 'writer-secret', scopes: SCOPES, alg: 'RS256' },
  writer2: { secret: 'writer2-secret', scopes: SCOPES, alg: 'RS256' },
  // The same rights as `reader`, with tokens signed by the other asymmetric algorithms a
  // resource server must take.
  'reader-es256': { secret: 'reader-es256-secret', scopes: ['tickets:read'], alg: 'ES256' },
  'reader-eddsa': { secret: 'reader-eddsa-secret', scopes: ['tickets:read'], alg: 'EdDSA' },
};

const LOOPBACK_MCP = /^http:\/\/127\.0\.0\.1:\d{1,5}\/mcp$/;

const provider = new Provider(issuer, {
  jwks,
  clients: Object.entries(CLIENTS).map(([id, client]) => ({
    client_id: id,
    client_secret: client.secret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    // oidc-provider takes client_secret_post as well for a client registered with
    // client_secret_basic (either secret-based method is accepted).
    token_endpoint_auth_method: 'client_secret_basic',
  })),
  scopes: SCOPES,
  features: {
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      // A token request must name its resource: without one oidc-provider would issue an
      // opaque token with no audience, which no MCP server may accept.
      defaultResource() {
        throw new errors.InvalidTarget('a resource indicator (RFC 8707) is required');
      },
      useGrantedResource: () => true,
      getResourceServerInfo(ctx, resource, client) {
        if (!LOOPBACK_MCP.test(resource)) {
          throw new errors.InvalidTarget(`resource ${resource} is not an MCP endpoint on 127.0.0.1`);
        }
        const policy = CLIENTS[client.clientId];
        const requested = (ctx.oidc.params.scope || '').split(' ').filter(Boolean);
        // Granting nothing of what was asked is a refusal, not an empty token.
        if (requested.length > 0 && !requested.some((scope) => policy.scopes.includes(scope))) {
          throw new errors.InvalidScope('requested scope is not allowed', requested.join(' '));
        }
        return {
          scope: policy.scopes.join(' '),
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: policy.alg } },
        };
      },
    },
  },
});

provider.on('grant.success', (ctx) => {
  const { client, params } = ctx.oidc;
  console.error(`token: client=${client.clientId} asked scope=${JSON.stringify(params.scope ?? null)} resource=${params.resource ?? '-'}`);
});
provider.on('grant.error', (ctx, error) => {
  console.error(`token refused: client=${ctx.oidc.client?.clientId ?? '-'} ${error.error}: ${error.error_description}`);
});
provider.on('server_error', (ctx, error) => {
  console.error('server error:', error);
});

// How often the keys were fetched, for a test that a resource server does not refetch them
// for every token naming an unknown `kid` (GET /_test/jwks-fetches: {"count": N}).
let jwksFetches = 0;
provider.use(async (ctx, next) => {
  if (ctx.path === '/_test/jwks-fetches') {
    ctx.body = { count: jwksFetches };
    return;
  }
  if (ctx.path === '/jwks') {
    jwksFetches += 1;
  }
  await next();
});

const server = http.createServer(provider.callback());
server.listen(port, '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
