/* global fetch, URL, setTimeout, clearTimeout */
// What the editor checks share: a free port, a child process awaited until it prints a line, and a
// minimal DevTools-protocol client for one page of Debian's headless Chromium.
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const WebSocket = require('ws');

const children = new Set();

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a program and resolves once its output matches `ready` (the match is returned). */
function start(cmd, args, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${path.basename(cmd)} did not start:\n${out.slice(-3000)}`)), 180_000);
    const onData = (chunk) => {
      out += chunk;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${path.basename(cmd)} exited (${code}):\n${out.slice(-3000)}`)));
  });
}

/** A minimal DevTools-protocol client for one page. */
async function page(browserWs) {
  const port = new URL(browserWs).port;
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  let id = 0;
  const pending = new Map();
  const waiters = [];
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    } else if (msg.method) for (const w of waiters.filter((x) => x.method === msg.method)) w.resolve(msg.params);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  const once = (method) => new Promise((resolve) => waiters.push({ method, resolve }));
  return { send, once, close: () => ws.close() };
}


/** Stops every program started here. */
function stopChildren() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

module.exports = { freePort, start, page, stopChildren };
