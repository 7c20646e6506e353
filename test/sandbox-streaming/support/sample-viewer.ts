import type { MediaStreamTrack, RTCPeerConnection, RTCTrackEvent } from 'werift';
import { answer, loopbackPeer } from './peers';
import type { RawSignaling } from './signaling-client';

/**
 * A viewer that hands a remote stream to its "page" the way the vendor's sample pages do: only when
 * the stream's id is not 'default' (the id a browser gives a stream whose m-line has no a=msid).
 * It answers the first offer and every `update`, and counts the packets each stream plays.
 */
export class SampleViewer {
  readonly pc: RTCPeerConnection;
  /**
   * The stream the other revision of the vendor's SDK hands its page: `srcObject = event.streams[0]`
   * on every track event, the last one winning ('default' for a track whose m-line has no a=msid).
   */
  pageStream?: string;
  /** Track kinds of each stream, as a browser groups the tracks it announces. */
  readonly streamKinds = new Map<string, Set<string>>();
  /** Stream ids in the order their tracks were handed over (ignored ones included). */
  readonly announced: string[] = [];
  /** Packets played, by stream id; streams with id 'default' are never played. */
  readonly played = new Map<string, number>();
  /** Every offer and update SDP the server sent, in order. */
  readonly offers: string[] = [];
  /** The stream each track belongs to now: a track handed over again may belong to another stream. */
  readonly #streamOf = new Map<MediaStreamTrack, string>();
  #stopped = false;
  readonly #ws: RawSignaling;
  readonly #rejectFreed: boolean;

  /**
   * audio: the viewer asked for audio (its peer takes Opus). rejectFreed: it answers an m-line an
   * update turned inactive with port 0, as werift 0.24 and other stacks do.
   */
  constructor(ws: RawSignaling, audio = false, rejectFreed = false) {
    this.#ws = ws;
    this.#rejectFreed = rejectFreed;
    this.pc = loopbackPeer('VP8', audio);
    this.pc.on('track', (event: RTCTrackEvent) => this.#onTrack(event));
  }

  /** True when the stream the srcObject-on-every-track page shows holds a video track. */
  get pageHasVideo(): boolean {
    return this.pageStream !== undefined && (this.streamKinds.get(this.pageStream)?.has('video') ?? false);
  }

  /** Answers the offer (trickling candidates) and keeps answering updates until stop(). */
  async join(): Promise<void> {
    const offer = (await this.#ws.next('offer')).sdp as string;
    this.offers.push(offer);
    const { sdp, candidates } = await answer(this.pc, offer, true);
    this.#ws.send({ type: 'answer', sdp });
    for (const candidate of candidates) this.#ws.send({ type: 'candidate', candidate });
    void this.#answerUpdates();
  }

  /** Packets played so far for a stream id. */
  packets(streamId: string): number {
    return this.played.get(streamId) ?? 0;
  }

  /** Stops answering and closes the peer. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.pc.close();
  }

  async #answerUpdates(): Promise<void> {
    while (!this.#stopped) {
      const update = await this.#ws.next('update').catch(() => undefined);
      if (!update || this.#stopped) return;
      this.offers.push(update.sdp as string);
      await this.pc.setRemoteDescription({ type: 'offer', sdp: update.sdp as string });
      await this.pc.setLocalDescription(await this.pc.createAnswer());
      const sdp = this.pc.localDescription?.sdp ?? '';
      // werift 0.25 keeps the port of an m-line it stops; werift 0.24 answered a freed one with port 0.
      this.#ws.send({ type: 'update', sdp: this.#rejectFreed ? rejectMids(sdp, inactiveMids(update.sdp as string)) : sdp });
    }
  }

  #onTrack(event: RTCTrackEvent): void {
    const id = event.streams[0]?.id ?? 'default';
    this.announced.push(id);
    const { track } = event;
    const kinds = this.streamKinds.get(id) ?? new Set<string>();
    kinds.add(track.kind);
    this.streamKinds.set(id, kinds);
    this.pageStream = id;
    const known = this.#streamOf.has(track);
    this.#streamOf.set(track, id);
    if (known) return;
    track.onReceiveRtp.subscribe(() => {
      const current = this.#streamOf.get(track);
      if (current === undefined || current === 'default') return;
      this.played.set(current, (this.played.get(current) ?? 0) + 1);
    });
  }
}

/** The `a=msid` lines of the video m-lines of an SDP, one entry per m-line (undefined: none). */
export function videoMsids(sdp: string): (string | undefined)[] {
  const sections = sdp.split(/\r\nm=/).slice(1);
  return sections.filter((s) => s.startsWith('video')).map((s) => /\r\na=msid:([^\r\n]+)/.exec(s)?.[1]);
}

/** The mids of the m-lines an SDP offers as inactive (still with a live port). */
export function inactiveMids(sdp: string): Set<string> {
  const mids = new Set<string>();
  for (const section of sdp.split(/\r\nm=/).slice(1)) {
    const mid = /\r\na=mid:([^\r\n]+)/.exec(section)?.[1];
    if (mid !== undefined && /\r\na=inactive/.test(section) && !/^\w+ 0 /.test(section)) mids.add(mid);
  }
  return mids;
}

/** The SDP with the m-lines of these mids rejected (port 0). */
export function rejectMids(sdp: string, mids: Set<string>): string {
  const [head, ...sections] = sdp.split('\r\nm=');
  return [
    head,
    ...sections.map((section) => {
      const mid = /\r\na=mid:([^\r\n]+)/.exec(section)?.[1];
      return mid !== undefined && mids.has(mid) ? section.replace(/^(\w+) \d+ /, '$1 0 ') : section;
    }),
  ].join('\r\nm=');
}

/** The port of each video m-line of an SDP (0: rejected). */
export function videoPorts(sdp: string): number[] {
  return sdp
    .split(/\r\nm=/)
    .slice(1)
    .filter((s) => s.startsWith('video'))
    .map((s) => Number(s.split(' ')[1]));
}
