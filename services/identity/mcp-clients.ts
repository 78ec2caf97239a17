// What the MCP client of each connection said it can do when it last opened with `initialize`
// (MCP 2025-11-25 and before). /mcp answers each request on its own, on any instance, so what the
// handshake declared would be gone by the next request: it is kept here, per connection, in the
// read store every instance shares. A 2026-07-28 client states its capabilities in every request
// and needs none of this.
import type { Doc, ReadStore } from '../store/read-store.ts';
import type { Clock } from '../domain/clock.ts';

const CLIENTS = 'mcp_clients';

interface ClientDoc extends Doc {
  /** The client can open a URL the server hands it for its user (elicitation, URL mode). */
  url_elicitation: boolean;
  declared_at: string;
}

export class McpClients {
  static readonly collections = [{ name: CLIENTS, indexes: [] }];
  readonly #reads: ReadStore;
  readonly #clock: Clock;

  constructor(reads: ReadStore, clock: Clock) {
    this.#reads = reads;
    this.#clock = clock;
  }

  /** At `initialize`: the last handshake of a connection's client is what it can do. */
  async declared(athleteId: string, grantId: string, urlElicitation: boolean): Promise<void> {
    const doc: ClientDoc = { id: grantId, url_elicitation: urlElicitation, declared_at: this.#clock.now().toISOString() };
    await this.#reads.upsert(CLIENTS, athleteId, doc);
  }

  async urlElicitation(athleteId: string, grantId: string): Promise<boolean> {
    const doc = (await this.#reads.get(CLIENTS, athleteId, grantId)) as ClientDoc | null;
    return doc?.url_elicitation === true;
  }
}
