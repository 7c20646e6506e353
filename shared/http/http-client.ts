import type { Dispatcher } from 'undici';
import { defaultDispatcher } from './dispatcher';
import { HttpCore, type HttpCoreOptions } from './http-core';
import type { Sleep } from './retry';
import { sleep } from './sleep';
import { undiciTransport, type HttpTransport } from './transport';

export { MAX_BODY_BYTES, type HttpRequest, type RequestBody } from './http-core';

/** How to reach one service; the I/O parts default to undici and the process's timers. */
export interface HttpClientOptions extends Omit<HttpCoreOptions, 'transport' | 'hostTransport' | 'sleep'> {
  /** A host's exchange instead of the undici call (not the retries, parsing or error mapping). */
  transport?: HttpTransport;
  /** undici dispatcher for the built-in transport (default: defaultDispatcher()); the caller keeps ownership. */
  dispatcher?: Dispatcher;
  sleep?: HttpCoreOptions['sleep'];
}

/** HttpCore over undici (or a host's transport) and the process's timers. */
export class HttpClient extends HttpCore {
  constructor(options: HttpClientOptions) {
    const io = processIo(options.transport, options.dispatcher);
    super({ ...options, ...io, sleep: options.sleep ?? io.sleep });
  }
}

/** How a client of this process sends and waits: a host's transport when given, else undici through `dispatcher` (default: the shared pool); the process's timers. */
export function processIo(transport: HttpTransport | undefined, dispatcher: Dispatcher | undefined): { transport: HttpTransport; hostTransport: boolean; sleep: Sleep } {
  return { transport: transport ?? undiciTransport(dispatcher ?? defaultDispatcher()), hostTransport: transport !== undefined, sleep };
}
