import type { Environment } from "../config";
import type { ScopeCtx } from "../context";

/** What authentication needs of an API key. */
export interface CachedKey {
  id: string;
  projectId: string;
  environment: Environment;
  /** The request scope this key grants, built on its first use (a key is valid on one environment only). */
  scope?: ScopeCtx;
}

/** What authentication needs of a project: whether it still exists, and its mode. */
export interface CachedProject {
  exists: boolean;
  productionEnabled: boolean;
}

/** A live bearer access token (or a whole Authorization header) and the key it stands for. */
export interface CachedToken {
  key: CachedKey;
  /** The token pair it belongs to; "" for an API key. */
  pairId: string;
  /** Epoch milliseconds; the token is refused from this instant on (Infinity for an API key). */
  expiresAt: number;
}

/** Insertion-ordered map that forgets its oldest entry when full. */
class Bounded<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  deleteWhere(test: (value: V) => boolean): void {
    for (const [key, value] of this.entries) if (test(value)) this.entries.delete(key);
  }
}

/**
 * Resolved credentials, so an authenticated request costs a SHA-256 and a map lookup instead of
 * database queries. Keyed by secret hashes (secrets are never kept). Only what exists is cached: a
 * new key needs no invalidation, and unknown secrets cannot fill the cache. Whatever changes a key,
 * a project or a token pair must call the matching `invalidate…` so the change takes effect at once.
 * One instance per appliance, owned by the composition root.
 */
export class KeyCache {
  private readonly keys: Bounded<CachedKey>;
  private readonly projects: Bounded<CachedProject>;
  private readonly tokens: Bounded<CachedToken>;
  private readonly headers: Bounded<CachedToken>;

  constructor(capacity = 4096) {
    this.keys = new Bounded(capacity);
    this.projects = new Bounded(capacity);
    this.tokens = new Bounded(capacity);
    this.headers = new Bounded(capacity);
  }

  /** The key whose secret hashes to `secretHash`, loading (and remembering) it on a miss. */
  key(secretHash: string, load: () => CachedKey | undefined): CachedKey | undefined {
    let key = this.keys.get(secretHash);
    if (!key && (key = load())) this.keys.set(secretHash, key);
    return key;
  }

  /** A project's state, loading (and remembering) it on a miss. */
  project(projectId: string, load: () => CachedProject): CachedProject {
    let project = this.projects.get(projectId);
    if (!project) this.projects.set(projectId, (project = load()));
    return project;
  }

  /** The access token hashing to `tokenHash` if it is live at `nowMs`, loading (and remembering) it on a miss. */
  accessToken(tokenHash: string, nowMs: number, load: () => CachedToken | undefined): CachedToken | undefined {
    let token = this.tokens.get(tokenHash);
    if (token && token.expiresAt <= nowMs) {
      this.tokens.delete(tokenHash);
      return undefined;
    }
    if (!token && (token = load())) this.tokens.set(tokenHash, token);
    return token;
  }

  /**
   * What a whole Authorization header hashing to `headerHash` stands for, if still live at `nowMs`:
   * a repeated header then costs one hash, with no decoding or parsing. Loads (and remembers) on a
   * miss, and once the entry expired (the load then says why it is refused).
   */
  credential(headerHash: string, nowMs: number, load: () => CachedToken | undefined): CachedToken | undefined {
    let entry = this.headers.get(headerHash);
    if (entry && entry.expiresAt <= nowMs) {
      this.headers.delete(headerHash);
      entry = undefined;
    }
    if (!entry && (entry = load())) this.headers.set(headerHash, entry);
    return entry;
  }

  /** Forgets a key and its tokens (call when a key is deleted or changed). */
  invalidateKey(keyId: string): void {
    this.keys.deleteWhere((k) => k.id === keyId);
    this.tokens.deleteWhere((t) => t.key.id === keyId);
    this.headers.deleteWhere((t) => t.key.id === keyId);
  }

  /** Forgets a project's state and its keys and tokens (call when a project is changed or deleted). */
  invalidateProject(projectId: string): void {
    this.projects.delete(projectId);
    this.keys.deleteWhere((k) => k.projectId === projectId);
    this.tokens.deleteWhere((t) => t.key.projectId === projectId);
    this.headers.deleteWhere((t) => t.key.projectId === projectId);
  }

  /** Forgets the tokens of one pair (call when the pair is revoked, e.g. by a refresh). */
  invalidateTokenPair(pairId: string): void {
    this.tokens.deleteWhere((t) => t.pairId === pairId);
    this.headers.deleteWhere((t) => t.pairId === pairId);
  }
}
