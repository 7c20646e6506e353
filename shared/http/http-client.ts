import type { Dispatcher } from 'undici';
import { defaultDispatcher } from './dispatcher';
import { HttpCore, type HttpCoreOptions } from './http-core';
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
    super({
      ...options,
      transport: options.transport ?? undiciTransport(options.dispatcher ?? defaultDispatcher()),
      hostTransport: options.transport !== undefined,
      sleep: options.sleep ?? sleep,
    });
  }
}
