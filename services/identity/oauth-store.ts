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
      // For the clean-up: what has expired, oldest first. Documents that never expire (null) are
      // outside any numeric range.
      { name: 'by_expiry', fields: ['expires_at', 'id'] },
    ],
  },
];

/**
 * A dynamically registered client that never completes an authorization is deleted after this
 * long: registration is anonymous, so an unused registration must not be kept for ever. The first
 * grant saved for the client lifts the limit (`Grant` upsert below).
 */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

/** What the clean-up deletes: oidc-provider's models, each a partition of `oauth_state`. */
export const OAUTH_MODELS = [
  'Session',
  'Interaction',
  'AuthorizationCode',
  'AccessToken',
  'RefreshToken',
  'Grant',
  'Client',
  'ReplayDetection',
  'PushedAuthorizationRequest',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'RegistrationAccessToken',
  'InitialAccessToken',
] as const;

interface StateDoc extends Doc {
  payload: AdapterPayload;
  expires_at: number | null;
  grant_id: string;
  uid: string;
  user_code: string;
}

/** One adapter class per store: oidc-provider instantiates it once per model name. */
export function readStoreAdapter(reads: ReadStore, clock: Clock): new (model: string) => Adapter {
  /** A client already kept stays kept when oidc-provider saves it again. */
  const unusedClientTtl = async (clientId: string): Promise<number | undefined> => {
    const existing = await reads.get<StateDoc>(OAUTH, 'Client', clientId);
    return existing && existing.expires_at === null ? undefined : UNUSED_CLIENT_TTL_SECONDS;
  };
  /** The client completed an authorization: it is a real client now, kept like its grants. */
  const keepClient = async (clientId: string): Promise<void> => {
    const client = await reads.get<StateDoc>(OAUTH, 'Client', clientId);
    if (client && client.expires_at !== null) await reads.upsert(OAUTH, 'Client', { ...client, expires_at: null });
  };
  const live = (doc: StateDoc | null) => (doc && (doc.expires_at === null || doc.expires_at > clock.now().getTime()) ? doc.payload : undefined);
  return class ReadStoreAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // oidc-provider stores clients without an expiry; ours expire until they are first used.
      const ttl = this.#model === 'Client' && !expiresIn ? await unusedClientTtl(id) : expiresIn;
      await reads.upsert(OAUTH, this.#model, {
        id,
        payload,
        expires_at: ttl ? clock.now().getTime() + ttl * 1000 : null,
        // Index fields are never null: an empty string stands for "none".
        grant_id: payload.grantId ?? '',
        uid: payload.uid ?? '',
        user_code: payload.userCode ?? '',
      } satisfies StateDoc);
      if (this.#model === 'Grant' && payload.clientId) await keepClient(payload.clientId);
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

/**
 * Deletes expired oidc-provider documents (codes, tokens, sessions, interactions, unused clients,
 * …) up to `batch` per model and run; expired ones are already invisible to `find`, this only
 * frees the space. Returns how many were deleted.
 */
export async function sweepExpiredOAuthState(reads: ReadStore, now: number, batch = 500): Promise<number> {
  let deleted = 0;
  for (const model of OAUTH_MODELS) {
    const expired = await reads.page<StateDoc>(OAUTH, { partition: model, index: 'by_expiry', direction: 'asc', range: { gte: 0, lte: now }, limit: batch });
    for (const doc of expired) await reads.delete(OAUTH, model, doc.id);
    deleted += expired.length;
  }
  return deleted;
}
