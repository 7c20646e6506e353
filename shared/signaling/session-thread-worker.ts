/*
 * Worker entry of ThreadSession: one SignalingSession, its events and frames posted to the host
 * thread. Like the wasm decoders' worker, Node may run this file straight from TypeScript (types
 * stripped): so it is CommonJS without import statements. Run from sources (tests), it compiles
 * the package's modules it requires with the TypeScript compiler, which development installs have.
 */
// A block: this file is a script, and its names must not meet those of the package's other worker.
{
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  type Ticket = import('../streaming/types').Ticket;
  type SessionOptions = import('./session').SessionOptions;
  type SessionEvents = import('./session').SessionEvents;
  type FromWorker = import('./session-thread-protocol').FromWorker;
  type ToWorker = import('./session-thread-protocol').ToWorker;

  if (__filename.endsWith('.ts')) compileTypeScriptOnRequire();

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { SignalingSession } = require('./session') as typeof import('./session');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { fromWire, wireError } = require('./session-thread-errors') as typeof import('./session-thread-errors');

  const port = threads.parentPort;
  if (!port) throw new Error('session-thread-worker runs only as a worker thread');
  const channel = port;

  const waiting = new Map<number, { resolve: (t: Ticket) => void; reject: (e: Error) => void }>();
  let nextTicket = 1;
  const post = (message: FromWorker): void => channel.postMessage(message);

  const getTicket = (): Promise<Ticket> =>
    new Promise((resolve, reject) => {
      const id = nextTicket++;
      waiting.set(id, { resolve, reject });
      post({ type: 'ticket', id });
    });

  const init = threads.workerData as { options: Omit<SessionOptions, 'getTicket'>; speedupsOff: boolean };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const speedups = require('./werift-speedups') as typeof import('./werift-speedups');
  if (init.speedupsOff) speedups.disableWeriftSpeedups();
  const options = init.options;
  const session = new SignalingSession({ ...options, getTicket });

  session.on('frame', (frame) => {
    // The exact bytes, moved rather than cloned: the frame's Buffer may be a view of a larger one.
    const data = new Uint8Array(frame.data);
    channel.postMessage({ type: 'frame', frame: { ...frame, data } } satisfies FromWorker, [data.buffer]);
  });
  for (const event of ['connected', 'rejoining', 'streamAdded', 'streamRemoved', 'notice', 'closed', 'error'] as const) {
    session.on(event as keyof SessionEvents, ((arg: Record<string, unknown> | Error) => {
      const plain = arg instanceof Error ? { error: wireError(arg) } : { ...arg, ...(arg?.error ? { error: wireError(arg.error) } : {}) };
      post({ type: 'event', event, arg: plain });
    }) as never);
  }

  channel.on('message', (message: ToWorker) => {
    switch (message.type) {
      case 'start':
        session.start().then(
          (info) => post({ type: 'started', info, werift: speedups.weriftSpeedupsStatus() }),
          (err: unknown) => post({ type: 'startFailed', error: wireError(err) }),
        );
        return;
      case 'keyframe':
        session.requestKeyframe(message.streamId);
        return;
      case 'ticket': {
        const w = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.ticket) {
          // Out of enumeration again, as the streaming client returns it.
          const { access_token: token, ...rest } = message.ticket;
          w?.resolve(Object.defineProperty(rest, 'access_token', { value: token, enumerable: false }) as Ticket);
        } else {
          w?.reject(fromWire(message.error ?? { kind: 'other', message: 'no ticket' }));
        }
        return;
      }
      case 'close':
        // Ending the thread ends whatever werift left scheduled; the host waits for the exit.
        void session.close().then(() => process.exit(0));
        return;
    }
  });

  /** Lets `require` load the package's .ts modules (sources only), compiled to CommonJS on the fly. */
  function compileTypeScriptOnRequire(): void {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ts = require('typescript') as typeof import('typescript');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs') as typeof import('node:fs');
    type Loadable = { _compile(code: string, file: string): void };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extensions = (require('node:module') as { _extensions: Record<string, (m: Loadable, file: string) => void> })._extensions;
    extensions['.ts'] = (module, file) => {
      const source = fs.readFileSync(file, 'utf8');
      const out = ts.transpileModule(source, { fileName: file, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
      module._compile(out.outputText, file);
    };
  }
}
