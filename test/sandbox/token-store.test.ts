import { TokenStore } from '../../sandbox/auth/token-store';

describe('sandbox token store', () => {
  it('forgets expired tokens when it issues a new one', () => {
    let clock = 1_000_000;
    const store = new TokenStore(60, () => clock);
    const scopes = new Set(['ips.api.ricoh/v1/detect_faces']);
    const old = [store.issue('a', scopes), store.issue('a', scopes), store.issue('b', scopes)];
    expect(store.storedCount).toBe(3);

    clock += 30_000;
    const young = store.issue('a', scopes);
    expect(store.storedCount).toBe(4);

    clock += 30_000;
    const fresh = store.issue('b', scopes);
    expect(store.storedCount).toBe(2);
    expect(store.issuedCount).toBe(5);
    for (const token of old) expect(store.verify(`Bearer ${token.accessToken}`, token.apiKey, 'vision', true)).toEqual({ ok: false, status: 401 });
    expect(store.verify(`Bearer ${young.accessToken}`, young.apiKey, 'vision', true)).toEqual({ ok: true, clientId: 'a' });
    expect(store.verify(`Bearer ${fresh.accessToken}`, fresh.apiKey, 'vision', true)).toEqual({ ok: true, clientId: 'b' });
  });
});
