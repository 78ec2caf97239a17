// oidc-provider's storage (clients, codes, tokens, sessions, grants, interactions) in the read
// store, so that it survives restarts and is shared by every instance. Not projections: these
// documents are written directly and expire.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../domain/clock.ts';
import type { CollectionSpec, Doc, ReadStore } from '../store/read-store.ts';

export const OAUTH = 'oauth_state';

export const oauthCollections: CollectionSpec[] = [
  {
    name: OAUTH,
    indexes: [
      { name: 'by_grant', fields: ['grant_id', 'id'] },
      { name: 'by_uid', fields: ['uid', 'id'] },
      { name: 'by_user_code', fields: ['user_code', 'id'] },
    ],
  },
];

interface StateDoc extends Doc {
  payload: AdapterPayload;
  expires_at: number | null;
  grant_id: string;
  uid: string;
  user_code: string;
}

/** One adapter class per store: oidc-provider instantiates it once per model name. */
export function readStoreAdapter(reads: ReadStore, clock: Clock): new (model: string) => Adapter {
  const live = (doc: StateDoc | null) => (doc && (doc.expires_at === null || doc.expires_at > clock.now().getTime()) ? doc.payload : undefined);
  return class ReadStoreAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      await reads.upsert(OAUTH, this.#model, {
        id,
        payload,
        expires_at: expiresIn ? clock.now().getTime() + expiresIn * 1000 : null,
        // Index fields are never null: an empty string stands for "none".
        grant_id: payload.grantId ?? '',
        uid: payload.uid ?? '',
        user_code: payload.userCode ?? '',
      } satisfies StateDoc);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return live(await reads.get<StateDoc>(OAUTH, this.#model, id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.#findBy('by_uid', uid);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.#findBy('by_user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      const doc = await reads.get<StateDoc>(OAUTH, this.#model, id);
      if (doc) await reads.upsert(OAUTH, this.#model, { ...doc, payload: { ...doc.payload, consumed: Math.floor(clock.now().getTime() / 1000) } });
    }

    async destroy(id: string): Promise<void> {
      await reads.delete(OAUTH, this.#model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await reads.deleteWhere(OAUTH, this.#model, 'by_grant', [grantId]);
    }

    async #findBy(index: string, value: string): Promise<AdapterPayload | undefined> {
      if (!value) return undefined;
      const [doc] = await reads.page<StateDoc>(OAUTH, { partition: this.#model, index, prefix: [value], direction: 'asc', limit: 1 });
      return live(doc ?? null);
    }
  };
}

/** Every token, code and the grant itself of an authorization server grant: gone at once. */
export async function revokeOAuthGrant(reads: ReadStore, oauthGrantId: string): Promise<void> {
  for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'BackchannelAuthenticationRequest', 'DeviceCode']) {
    await reads.deleteWhere(OAUTH, model, 'by_grant', [oauthGrantId]);
  }
  await reads.delete(OAUTH, 'Grant', oauthGrantId);
}
