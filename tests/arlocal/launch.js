// Test-only launcher: arlocal on 127.0.0.1 (never every interface), on a free port.
// Usage: node launch.js DBPATH [--automine]
// Prints the line CLAWQL_ARLOCAL_PORT=N on stdout once it listens; stops on SIGTERM/SIGINT.
// --automine mines a block after every accepted POST /tx, so GraphQL sees it at once
// (arlocal otherwise waits for GET /mine).
'use strict';
const http = require('http');
const ArLocal = require('arlocal').default;

const dbPath = process.argv[2];
const automine = process.argv.includes('--automine');
if (!dbPath) {
  console.error('usage: node launch.js DBPATH [--automine]');
  process.exit(2);
}

// ArLocal treats port 0 as "use 1984"; the port we pass is ignored by the listen override.
const arlocal = new ArLocal(1984, false, dbPath, false, 0);
const koa = arlocal.app;
const originalListen = koa.listen.bind(koa);
let port = 0;

function mineNow() {
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/mine' }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', resolve);
  });
}

koa.listen = (_port, callback) => {
  if (automine) {
    koa.middleware.unshift(async (ctx, next) => {
      await next();
      if (ctx.method === 'POST' && ctx.path === '/tx' && ctx.status === 200) await mineNow();
    });
  }
  const server = originalListen(0, '127.0.0.1', () => {
    port = server.address().port;
    process.stdout.write(`CLAWQL_ARLOCAL_PORT=${port}\n`);
    if (callback) callback();
  });
  return server;
};

function stop() {
  arlocal.stop().finally(() => setTimeout(() => process.exit(0), 200));
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
arlocal.start().catch((err) => {
  console.error(err);
  process.exit(1);
});
