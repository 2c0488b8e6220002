import { Arg, Ctx, Field, Float, ID, inject, injectable, Int, Mutation, ObjectType, Query, Resolver, badRequest, MAX_PAGE_SIZE, notFound, requirePrincipal, type GraphQLContext } from '@filigrane/plugin-api';
import type { EvidencePack } from './evidence.entities.js';
import { EvidencePackService } from './evidence.service.js';
import { SigningKeyService } from './signing-key.service.js';

@ObjectType('EvidenceTimeStamp', { description: 'The RFC 3161 time stamp of a pack' })
export class EvidenceTimeStampType {
  @Field(() => Date) time!: Date;
  @Field(() => String) authority!: string;
}

@ObjectType('EvidencePack', { description: 'A signed, time-stamped WACZ proving what was seen of some matches, and when' })
export class EvidencePackType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'pending, complete or failed' }) status!: string;
  @Field(() => [ID]) matchIds!: string[];
  @Field(() => Boolean) automatic!: boolean;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) completedAt!: Date | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 (hex) of the WACZ file' }) sha256!: string | null;
  @Field(() => Float, { nullable: true, description: 'Bytes of the WACZ file' }) size!: number | null;
  @Field(() => String, { nullable: true, description: 'REST URL of the WACZ file, once complete' }) downloadUrl!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Int) screenshots!: number;
  @Field(() => String, { nullable: true, description: 'Why a screenshot is missing (no Chromium...)' }) screenshotMissing!: string | null;
  @Field(() => EvidenceTimeStampType, { nullable: true }) timeStamp!: EvidenceTimeStampType | null;
  @Field(() => String, { nullable: true, description: 'Why the pack has no time stamp' }) timeStampMissing!: string | null;
  @Field(() => Int, { description: "WARC records of the crawl that found the matches (the page's and the image's)" }) crawlRecords!: number;
  @Field(() => Int, { description: 'Resources fetched by the fresh capture' }) capturedResources!: number;
  @Field(() => String, { nullable: true, description: 'Id of the signing key (GET /api/v4/evidence/keys/, evidenceKeys)' }) keyId!: string | null;
}

@ObjectType('EvidenceKey', { description: 'A public key that signs evidence packs' })
export class EvidenceKeyType {
  @Field(() => ID) id!: string;
  @Field(() => String) algorithm!: string;
  @Field(() => String, { description: 'PEM (SubjectPublicKeyInfo)' }) publicKey!: string;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('EvidenceSettings')
export class EvidenceSettingsType {
  @Field(() => Boolean, { description: 'A pack of every match when it is first recorded' }) autoCapture!: boolean;
}

export function packType(p: EvidencePack, baseUrl: string): EvidencePackType {
  const s = p.summary as { screenshots?: number; screenshotMissing?: string | null; crawlRecords?: number; capturedResources?: number; timeStamp?: { genTime: string; authority: string } | null; timeStampMissing?: string | null; keyId?: string };
  return {
    id: p.id, status: p.status, matchIds: p.matchIds, automatic: p.automatic, createdAt: p.created, completedAt: p.completed, sha256: p.sha256, size: p.size,
    downloadUrl: p.status === 'complete' ? `${baseUrl}/api/v4/evidence/${p.id}/download` : null,
    error: p.error, screenshots: s.screenshots ?? 0, screenshotMissing: s.screenshotMissing ?? null,
    timeStamp: s.timeStamp ? { time: new Date(s.timeStamp.genTime), authority: s.timeStamp.authority } : null, timeStampMissing: s.timeStampMissing ?? null,
    crawlRecords: s.crawlRecords ?? 0, capturedResources: s.capturedResources ?? 0, keyId: s.keyId ?? null,
  };
}

@injectable()
@Resolver()
export class EvidenceResolver {
  constructor(
    @inject(EvidencePackService) private readonly packs: EvidencePackService,
    @inject(SigningKeyService) private readonly keys: SigningKeyService,
  ) {}

  @Query(() => [EvidencePackType], { description: "The account's evidence packs, newest first" })
  async evidencePacks(
    @Arg('first', () => Int, { defaultValue: MAX_PAGE_SIZE, description: `At most ${MAX_PAGE_SIZE}, like REST's page_size` }) first: number,
    @Arg('offset', () => Int, { defaultValue: 0 }) offset: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<EvidencePackType[]> {
    // Out-of-range paging is the client's error, as in REST (never clamped silently).
    if (first < 1) throw badRequest('invalid_page_size', `first must be a positive integer (at most ${MAX_PAGE_SIZE}).`);
    if (offset < 0) throw badRequest('invalid_offset', 'offset must be 0 or more.');
    const [rows] = await this.packs.list(requirePrincipal(ctx).accountId, offset, Math.min(first, MAX_PAGE_SIZE));
    return rows.map((p) => packType(p, ctx.baseUrl));
  }

  @Query(() => Int, { description: "How many evidence packs the account has (the count of GET /api/v4/evidence/)" })
  async evidencePackCount(@Ctx() ctx: GraphQLContext): Promise<number> {
    const [, total] = await this.packs.list(requirePrincipal(ctx).accountId, 0, 1);
    return total;
  }

  @Query(() => EvidencePackType, { description: 'One evidence pack; NOT_FOUND when it is not one of the account\'s (as REST)' })
  async evidencePack(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<EvidencePackType> {
    const pack = await this.packs.row(requirePrincipal(ctx).accountId, id);
    if (!pack) throw notFound('No such evidence pack.');
    return packType(pack, ctx.baseUrl);
  }

  @Query(() => [EvidenceKeyType], { description: 'The public keys that sign evidence packs' })
  async evidenceKeys(): Promise<EvidenceKeyType[]> {
    return (await this.keys.publicKeys()).map((k) => ({ id: k.id, algorithm: k.algorithm, publicKey: k.publicKey, createdAt: k.created }));
  }

  @Query(() => EvidenceSettingsType)
  async evidenceSettings(@Ctx() ctx: GraphQLContext): Promise<EvidenceSettingsType> {
    return { autoCapture: (await this.packs.settings(requirePrincipal(ctx).accountId)).auto_capture };
  }

  @Mutation(() => EvidencePackType, { description: 'Ask for an evidence pack of 1 to 20 matches; a job builds it (status pending until then)' })
  async captureEvidence(@Arg('matchIds', () => [ID]) matchIds: string[], @Ctx() ctx: GraphQLContext): Promise<EvidencePackType> {
    const accountId = requirePrincipal(ctx).accountId;
    const { id } = await this.packs.capture(accountId, matchIds, ctx.baseUrl);
    return packType((await this.packs.row(accountId, id))!, ctx.baseUrl);
  }

  @Mutation(() => EvidenceSettingsType)
  async updateEvidenceSettings(@Arg('autoCapture', () => Boolean) autoCapture: boolean, @Ctx() ctx: GraphQLContext): Promise<EvidenceSettingsType> {
    return { autoCapture: (await this.packs.updateSettings(requirePrincipal(ctx).accountId, { auto_capture: autoCapture })).auto_capture };
  }
}
