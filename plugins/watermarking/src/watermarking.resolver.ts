import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import {
  ApiErrorBodyObject, apiErrorBodyObject, connectionType, fetchClientUrl, offsetPage, requirePrincipal, type Connection, type GraphQLContext,
} from '@filigrane/core';
import { parseOptions } from './watermarking-options.js';
import { WatermarkingService, type WatermarkingStatusView } from './watermarking.service.js';

@ObjectType('WatermarkingResult', { description: 'The three assets, served with the same credentials, until expiry.' })
class WatermarkingResultType {
  @Field(() => String) original!: string;
  @Field(() => String) watermarked!: string;
  @Field(() => String, { description: 'The .lmk to give to the media PUT (as url).' }) registration!: string;
  @Field(() => String, { description: 'ISO 8601 date after which the assets are gone.' }) expiry!: string;
}

@ObjectType('WatermarkingJob', { description: 'A watermarking and its state; result once complete, error once failed.' })
class WatermarkingJobType {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'The REST status URL.' }) url!: string;
  @Field(() => String, { description: 'pending, running, complete or failed' }) status!: string;
  @Field(() => String) created!: string;
  @Field(() => String, { nullable: true }) finished!: string | null;
  @Field(() => String) expiry!: string;
  @Field(() => WatermarkingResultType, { nullable: true }) result!: WatermarkingResultType | null;
  @Field(() => ApiErrorBodyObject, { nullable: true, description: 'Once failed: the error a synchronous request would have had.' }) error!: ApiErrorBodyObject | null;
}

const WatermarkingJobConnection = connectionType('WatermarkingJob', WatermarkingJobType);

const toType = (v: WatermarkingStatusView): WatermarkingJobType => ({ ...v, error: apiErrorBodyObject(v.error) });

@injectable()
@Resolver()
export class WatermarkingResolver {
  constructor(@inject(WatermarkingService) private readonly service: WatermarkingService) {}

  @Mutation(() => WatermarkingJobType, {
    description:
      'Watermark the image at url (http(s) or data URI). sync (default true) waits up to timeout seconds (default 120): '
      + 'complete with result, or the error the job failed with; still pending/running after a timeout (poll watermarkingJob). '
      + 'sync false returns the pending job at once.',
  })
  async watermarkImage(
    @Arg('url', () => String) url: string,
    @Arg('sync', () => Boolean, { nullable: true }) sync: boolean | null,
    @Arg('timeout', () => Int, { nullable: true }) timeout: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WatermarkingJobType> {
    const principal = requirePrincipal(ctx);
    const options = parseOptions(sync, timeout);
    const bytes = await fetchClientUrl({ container: ctx.container, principal, baseUrl: ctx.baseUrl }, url);
    return toType(this.service.view(await this.service.watermark(principal.accountId, bytes, options), ctx.baseUrl));
  }

  @Query(() => WatermarkingJobConnection, { description: 'The account\'s watermarkings that have not expired, newest first (GET /api/v4/watermarking/).' })
  async watermarkingJobs(
    @Ctx() ctx: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<WatermarkingJobType>> {
    const accountId = requirePrincipal(ctx).accountId;
    return offsetPage(first, after, (o, l) => this.service.list(accountId, o, l), (job) => toType(this.service.view(job, ctx.baseUrl)));
  }

  @Query(() => WatermarkingJobType, { nullable: true, description: 'A watermarking of the caller\'s, by id; NOT_FOUND when there is none.' })
  async watermarkingJob(@Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<WatermarkingJobType> {
    return toType(this.service.view(await this.service.find(requirePrincipal(ctx).accountId, id), ctx.baseUrl));
  }
}
