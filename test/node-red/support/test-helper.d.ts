/** The part of node-red-node-test-helper (which ships no types) that these tests use. */
declare module 'node-red-node-test-helper' {
  import type { Node } from 'node-red';
  type NodeModule = (RED: never) => void | Promise<void>;
  interface NodeTestHelper {
    load(nodes: NodeModule | NodeModule[], flow: object[], credentials?: Record<string, unknown>): Promise<void>;
    unload(): Promise<void>;
    getNode(id: string): Node | undefined;
    startServer(): Promise<void>;
    stopServer(): Promise<void>;
    settings(settings: Record<string, unknown>): Record<string, unknown>;
    url(): string;
  }
  const helper: NodeTestHelper;
  export default helper;
}
