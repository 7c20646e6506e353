/** ICE server entry as the offer's `config` carries it. */
export interface OfferIceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/** Messages the server sends that this client acts on. */
export type ServerMessage =
  | { type: 'offer'; sdp: string; client_id?: string; config?: { iceServers?: OfferIceServer[]; iceTransportPolicy?: string } }
  | { type: 'update' | 're-offer'; sdp: string }
  | { type: 'ping'; stats?: boolean }
  | { type: 'notify' | 'push'; [key: string]: unknown }
  /** Any other type: not acted on, but it still shows the server is alive (idle timer). */
  | { type: 'other' };

/** Parses one signaling text frame; returns undefined for anything that is not a JSON object with a type. */
export function parseServerMessage(text: string): ServerMessage | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!m || typeof m !== 'object' || typeof (m as { type?: unknown }).type !== 'string') return undefined;
  const msg = m as Record<string, unknown>;
  switch (msg.type) {
    case 'offer':
    case 'update':
    case 're-offer':
      return typeof msg.sdp === 'string' ? (msg as ServerMessage) : undefined;
    case 'ping':
    case 'notify':
    case 'push':
      return msg as ServerMessage;
    default:
      return { type: 'other' };
  }
}
