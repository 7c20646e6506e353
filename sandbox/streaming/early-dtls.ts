import type { RTCDtlsTransport } from 'werift';

/** At most this many early DTLS packets are kept per transport (a ClientHello and a few resends). */
const MAX_HELD = 8;

/**
 * Keeps the DTLS packets a client sends before werift's DTLS side has started, and hands them to it
 * once it has. werift starts DTLS only after its own ICE check has come back, while a browser whose
 * check was answered sends its ClientHello at once: werift dropped that one, and the handshake began
 * with the browser's resend 60-100 ms later. A DTLS server that listens from the start takes the
 * first one. Returns how many packets were handed over so far.
 */
export function holdEarlyDtls(transport: RTCDtlsTransport): () => number {
  const connection = transport.iceTransport.connection;
  const held: Buffer[] = [];
  let handed = 0;
  const early = connection.onData.subscribe((data: Buffer) => {
    if (transport.state === 'new' && isDtls(data) && held.length < MAX_HELD) held.push(data);
  });
  const started = transport.onStateChange.subscribe((state) => {
    if (state === 'new') return;
    early.unSubscribe();
    started.unSubscribe();
    if (state !== 'connecting' || held.length === 0) return;
    // werift creates its DTLS server right after announcing 'connecting', in the same turn: hand the
    // packets over once that turn is done, through the connection's own event, as if they came now.
    setImmediate(() => {
      if (transport.state !== 'connecting') return;
      for (const data of held.splice(0)) {
        handed++;
        connection.onData.execute(data);
      }
    });
  });
  return () => handed;
}

/** RFC 7983's demultiplexing: a first byte of 20-63 is DTLS. */
function isDtls(data: Buffer): boolean {
  return data.length > 0 && data[0] >= 20 && data[0] <= 63;
}
