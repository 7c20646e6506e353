import type { VisitorDocument, VisitorStore } from '../../shared/watch';

/**
 * The visitors the watch nodes of one config node remember, each in its own node context, seen as
 * one store for a collection: what the people directory reads to name a visitor, and writes back
 * with that visitor taken out. A watch node adds its store when it is created and removes it on close.
 */
export class VisitorStores {
  readonly #stores = new Set<VisitorStore>();

  /** A watch node's store joins. */
  add(store: VisitorStore): void {
    this.#stores.add(store);
  }

  /** A watch node's store leaves (the node closed). */
  remove(store: VisitorStore): void {
    this.#stores.delete(store);
  }

  /** The visitors of every store that holds `collectionId`'s, as one store; an unreadable store is left out. */
  forCollection(collectionId: string): VisitorStore {
    const stores = this.#stores;
    const documents = async (): Promise<[VisitorStore, VisitorDocument][]> => {
      const found: [VisitorStore, VisitorDocument][] = [];
      for (const store of stores) {
        const doc = (await Promise.resolve(store.load()).catch(() => undefined)) as Partial<VisitorDocument> | undefined;
        if (doc?.kind === 'vision-streaming-visitors' && doc.collectionId === collectionId && Array.isArray(doc.visitors)) found.push([store, doc as VisitorDocument]);
      }
      return found;
    };
    return {
      name: "the watch nodes' visitors",
      async load(): Promise<VisitorDocument | undefined> {
        const found = await documents();
        if (found.length === 0) return undefined;
        return { kind: 'vision-streaming-visitors', version: 1, collectionId, visitors: found.flatMap(([, doc]) => doc.visitors) };
      },
      // The directory saves the list with the visitors it took out: each store keeps those of its own still listed.
      async save(document: VisitorDocument): Promise<void> {
        const kept = new Set(document.visitors.map((v) => v.visitorId));
        for (const [store, doc] of await documents()) {
          const visitors = doc.visitors.filter((v) => kept.has(v.visitorId));
          if (visitors.length !== doc.visitors.length) await store.save({ kind: 'vision-streaming-visitors', version: 1, collectionId, visitors });
        }
      },
    };
  }
}
