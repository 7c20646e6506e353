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
    /** supertest over the runtime's admin app (the editor's HTTP API). */
    request(): AdminRequest;
  }
  /** The supertest calls the tests make. */
  interface AdminResponse {
    status: number;
    // JSON: an object or an array, as the endpoint answers.
    body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  interface AdminTest extends Promise<AdminResponse> {
    query(values: Record<string, string>): AdminTest;
    send(body: unknown): AdminTest;
    expect(status: number): Promise<AdminResponse>;
  }
  interface AdminRequest {
    get(path: string): AdminTest;
    post(path: string): AdminTest;
  }
  const helper: NodeTestHelper;
  export default helper;
}
