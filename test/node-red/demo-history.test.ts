import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Publisher } from '../../shared/publish';
import { CHROMIUM, launchChromium, openDashboard, startLiveNodeRed, type LiveNodeRed } from '../support/live-browser';
import { publishClip, useStandardScene, type WatchHarness } from '../watch/support/room';

// The demo's History page in Debian's headless Chromium: Node-RED (a child process, Dashboard 2.0)
// with the demo's face watch node as committed (Keep history on, a clips folder) on the standard
// clip through a real room, and the History page's nodes of scripts/demo-history-flow.json. The
// page lists the day's visit with the face crop the history kept, and plays its clip in the page.

const describeWithBrowser = CHROMIUM ? describe : describe.skip;
if (!CHROMIUM) console.log('demo History page test skipped: no Chromium on this machine (apt-get install chromium)');

const SCRIPTS = path.join(__dirname, '..', '..', 'scripts');
const flowOf = (file: string) => JSON.parse(readFileSync(path.join(SCRIPTS, file), 'utf8')) as Record<string, unknown>[];

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let faceA: string;

useStandardScene('nr-demo-history-', 180_000, (setup) => {
  ({ h, dir, clip } = setup);
  ({ collectionId, faceA } = setup.scene);
});

describeWithBrowser('demo History page', () => {
  let red: LiveNodeRed | undefined;
  let browser: Browser | undefined;
  let publisher: Publisher | undefined;
  afterAll(async () => {
    await browser?.close();
    await publisher?.close();
    await red?.stop();
  });

  it("shows the day's visit the watch node kept, with its face, and plays its clip in the page", async () => {
    const demo = flowOf('demo-flow.json');
    const page = flowOf('demo-history-flow.json');
    const watch = demo.find((n) => n.type === 'vision-streaming-watch')!;
    // The demo's door camera keeps history; the page's history node reads the same config's.
    expect(watch.keepHistory).toBe(true);
    expect(page.find((n) => n.type === 'vision-streaming-history')!.service).toBe(demo.find((n) => n.type === 'vision-streaming-config')!.id);

    const room = await h.streaming.createRoom();
    const clips = path.join(dir, 'clips');
    await mkdir(clips, { mode: 0o700 });
    const keep = new Set(['tab', 'vision-streaming-config', 'ui-base', 'ui-theme']);
    const placeholders = JSON.stringify([...demo.filter((n) => keep.has(n.type as string)), ...page])
      .split('"__SANDBOX__"')
      .join(JSON.stringify(h.sandbox.url))
      .split('"__COLLECTION__"')
      .join(JSON.stringify(collectionId));
    const flow = [
      ...(JSON.parse(placeholders) as Record<string, unknown>[]),
      // The demo's watch node, without its other pages' wires; shorter than the demo's so the first clip comes soon.
      { ...watch, roomId: room.id, collectionId, labels: JSON.stringify({ [faceA]: 'Astronaut' }), clips, preRollSeconds: '1', postRollSeconds: '1', leftAfterSeconds: '1.5', wires: [[], [], [], [], []] },
    ];
    const config = flow.find((n) => n.type === 'vision-streaming-config')!;
    red = await startLiveNodeRed(flow, { [config.id as string]: { clientId: h.credentials.clientId, clientSecret: h.credentials.clientSecret } });
    publisher = await publishClip(h, room.id, clip);
    browser = await launchChromium();
    const { page: tab, console: lines } = await openDashboard(browser, `${red.url}/dashboard/history`);
    const refresh = page.find((n) => n.type === 'inject')!.id as string;

    // A visit with its face shows once written; its clip once the visit ended. The refresh is pressed meanwhile.
    const deadline = Date.now() + 150_000;
    for (;;) {
      const ready = await tab.locator('[data-test=visit]:has(img[data-test=face]) [data-test=play]:not([disabled])').count();
      if (ready > 0) break;
      if (Date.now() > deadline) throw new Error(`no visit with a face and a clip on the History page\nconsole: ${lines.join('\n')}\nNode-RED: ${red.log().slice(-3000)}`);
      await red.inject(refresh);
      await new Promise((r) => setTimeout(r, 2000));
    }
    const visit = tab.locator('[data-test=visit]:has(img[data-test=face]):has([data-test=play]:not([disabled]))').first();
    expect(await visit.locator('.vsh-name').textContent()).toMatch(/Astronaut|visitor|stranger/);
    expect(await visit.locator('img[data-test=face]').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await visit.locator('[data-test=play]').click();
    const video = tab.locator('video[data-test=clip]');
    await video.waitFor({ timeout: 30_000 });
    expect(await video.getAttribute('src')).toMatch(/^data:video\/webm;base64,/);
    // The clip plays in the page: its frames decode and time moves on.
    await tab.waitForFunction(() => {
      const v = document.querySelector('video[data-test=clip]') as HTMLVideoElement | null;
      return !!v && !v.error && v.readyState >= 2 && v.currentTime > 0;
    }, undefined, { timeout: 30_000 });
  }, 300_000);
});
