/*
 * Worker entry of the receive pool: many SignalingSessions in one thread, each named by the `sid`
 * the host gave it, their events and frames posted to the host thread. Like the wasm decoders'
 * worker, Node may run this file straight from TypeScript (types stripped): so it is CommonJS
 * without import statements. Run from sources (tests), it compiles the package's modules it requires
 * with the TypeScript compiler, which development installs have.
 */
// A block: this file is a script, and its names must not meet those of the package's other worker.
{
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  type Ticket = import('../streaming/types').Ticket;
  type SessionEvents = import('./session').SessionEvents;
  type Session = import('./session').SignalingSession;
  type FromWorker = import('./session-thread-protocol').FromWorker;
  type ToWorker = import('./session-thread-protocol').ToWorker;
  type Init = import('./session-thread-protocol').ReceiveWorkerInit;

  if (__filename.endsWith('.ts')) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('../util/compile-on-require.ts') as { compileTypeScriptOnRequire(): void }).compileTypeScriptOnRequire();
  }

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const speedups = require('./werift-speedups') as typeof import('./werift-speedups');
  // Before werift's first connection here: a worker runs all its sessions one way, the host's
  // process setting when the pool started it (set here explicitly: the variable may say otherwise).
  speedups.setWeriftSpeedups(!(threads.workerData as Init).speedupsOff);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { SignalingSession } = require('./session') as typeof import('./session');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { fromWire, wireError } = require('./session-thread-errors') as typeof import('./session-thread-errors');

  const port = threads.parentPort;
  if (!port) throw new Error('receive-worker runs only as a worker thread');
  const channel = port;
  const post = (message: FromWorker): void => channel.postMessage(message);

  const sessions = new Map<number, Session>();
  const waiting = new Map<string, { resolve: (t: Ticket) => void; reject: (e: Error) => void }>();
  let nextTicket = 1;

  const ticketSource = (sid: number) => (): Promise<Ticket> =>
    new Promise((resolve, reject) => {
      const id = nextTicket++;
      waiting.set(`${sid}:${id}`, { resolve, reject });
      post({ type: 'ticket', sid, id });
    });

  const open = (sid: number, options: Extract<ToWorker, { type: 'start' }>['options']): void => {
    let session: Session;
    try {
      session = new SignalingSession({ ...options, getTicket: ticketSource(sid) });
    } catch (err) {
      // The host checked the options already; should one still be refused, only this session ends.
      post({ type: 'startFailed', sid, error: wireError(err) });
      post({ type: 'event', sid, event: 'closed', arg: { error: wireError(err) } });
      post({ type: 'gone', sid });
      return;
    }
    sessions.set(sid, session);
    session.on('frame', (frame) => {
      // The exact bytes, moved rather than cloned: the frame's Buffer may be a view of a larger one.
      const data = new Uint8Array(frame.data);
      channel.postMessage({ type: 'frame', sid, frame: { ...frame, data } } satisfies FromWorker, [data.buffer]);
    });
    for (const event of ['connected', 'rejoining', 'streamAdded', 'streamRemoved', 'notice', 'closed', 'error'] as const) {
      session.on(event as keyof SessionEvents, ((arg: Record<string, unknown> | Error) => {
        const plain = arg instanceof Error ? { error: wireError(arg) } : { ...arg, ...(arg?.error ? { error: wireError(arg.error) } : {}) };
        post({ type: 'event', sid, event, arg: plain });
      }) as never);
    }
    // A session that ended by itself (it gave up) is forgotten as one that was closed.
    session.once('closed', () => forget(sid, session));
    session.start().then(
      (info) => post({ type: 'started', sid, info, werift: speedups.weriftSpeedupsStatus(), applied: speedups.appliedSpeedups() }),
      (err: unknown) => post({ type: 'startFailed', sid, error: wireError(err) }),
    );
  };

  const forget = (sid: number, session: Session): void => {
    // close() settles after the session's own 'closed': the host hears of it once werift let go.
    void session.close().then(() => {
      if (sessions.get(sid) !== session) return;
      sessions.delete(sid);
      for (const key of [...waiting.keys()]) if (key.startsWith(`${sid}:`)) waiting.delete(key);
      post({ type: 'gone', sid });
    });
  };

  channel.on('message', (message: ToWorker) => {
    switch (message.type) {
      case 'start':
        open(message.sid, message.options);
        return;
      case 'keyframe':
        sessions.get(message.sid)?.requestKeyframe(message.streamId);
        return;
      case 'ticket': {
        const key = `${message.sid}:${message.id}`;
        const w = waiting.get(key);
        waiting.delete(key);
        if (message.ticket) {
          // Out of enumeration again, as the streaming client returns it.
          const { access_token: token, ...rest } = message.ticket;
          w?.resolve(Object.defineProperty(rest, 'access_token', { value: token, enumerable: false }) as Ticket);
        } else {
          w?.reject(fromWire(message.error ?? { kind: 'other', message: 'no ticket' }));
        }
        return;
      }
      case 'close': {
        const session = sessions.get(message.sid);
        if (session) void session.close();
        else post({ type: 'gone', sid: message.sid });
        return;
      }
    }
  });
}
