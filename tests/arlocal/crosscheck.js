// Test-only: what arweave-js (the reference client) computes, for tests/test_sync_arweave.py.
//   node crosscheck.js roots SIZE...   -> {"SIZE": {"merkle", "data_root", "data_paths"}} (b64url)
//     over the deterministic pattern: sha256("clawql-arweave-" + i) for i = 0, 1, ... concatenated
//   node crosscheck.js verify < tx.json -> {"verify": true|false}  (arweave.transactions.verify)
'use strict';
const crypto = require('crypto');
const Arweave = require('arweave');
const merkle = require('arweave/node/lib/merkle');
const Transaction = require('arweave/node/lib/transaction').default;

const arweave = Arweave.init({ host: '127.0.0.1', port: 1, protocol: 'http' });
const b64url = (buf) => Buffer.from(buf).toString('base64url');

function pattern(size) {
  const blocks = [];
  for (let i = 0; i * 32 < size; i++) {
    blocks.push(crypto.createHash('sha256').update(`clawql-arweave-${i}`).digest());
  }
  return new Uint8Array(Buffer.concat(blocks).subarray(0, size));
}

async function roots(sizes) {
  const out = {};
  for (const size of sizes) {
    const data = pattern(+size);
    const tx = new Transaction({ format: 2 });
    await tx.prepareChunks(data);
    out[size] = {
      merkle: b64url(await merkle.computeRootHash(data)),
      data_root: tx.data_root,
      data_paths: tx.chunks.proofs.map((p) => b64url(p.proof)),
    };
  }
  return out;
}

async function verify() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const tx = arweave.transactions.fromRaw(JSON.parse(Buffer.concat(chunks).toString()));
  return { verify: await arweave.transactions.verify(tx) };
}

(async () => {
  const [mode, ...args] = process.argv.slice(2);
  const result = mode === 'roots' ? await roots(args) : await verify();
  process.stdout.write(JSON.stringify(result) + '\n');
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
