// Writes a private JWKS for server.mjs: one fresh RS256, ES256 and EdDSA (Ed25519) key,
// followed by the keys of an older set when one is given (a rotation: the new keys sign,
// the old ones stay published so tokens they signed still verify).
//
//   node keys.mjs OUT.json [--keep OLD.json] [--prefix KIDPREFIX]
//
// Key ids are `<prefix>-<alg>-<random>`, plain ids a resource server looks up and nothing else.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keep: { type: 'string' },
    prefix: { type: 'string', default: 'k' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node keys.mjs OUT.json [--keep OLD.json] [--prefix KIDPREFIX]');
  process.exit(2);
}

function key(alg, type, options) {
  const { privateKey } = generateKeyPairSync(type, options);
  const kid = `${args.prefix}-${alg.toLowerCase()}-${randomBytes(6).toString('hex')}`;
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
}

const keys = [
  key('RS256', 'rsa', { modulusLength: 2048 }),
  key('ES256', 'ec', { namedCurve: 'P-256' }),
  key('EdDSA', 'ed25519'),
];
if (args.keep) {
  keys.push(...JSON.parse(readFileSync(args.keep, 'utf8')).keys);
}
writeFileSync(positionals[0], `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
