import { createExtensionPoint } from '@filigrane/core';

/** What a digest section is written for: one account, one period, in the account's language. */
export interface DigestSectionRequest {
  accountId: number;
  period: 'daily' | 'weekly';
  since: Date;
  until: Date;
  /** `fr` or `en`. */
  lang: string;
}

/**
 * A digest section another plugin writes (the review plugin's counts of matches per review state):
 * a titled block of text, or null when it has nothing to say. Sections follow the match sections of
 * a digest that is sent anyway; they never cause a digest by themselves.
 */
export type DigestSection = (request: DigestSectionRequest) => Promise<string | null>;

/** Declared by notifications: `contribute(DIGEST_SECTIONS, (c) => (req) => c.get(Mine).section(req))`. */
export const DIGEST_SECTIONS = createExtensionPoint<DigestSection>('notifications.digest-sections');
